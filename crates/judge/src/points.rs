//! Points as the scoring model holds them: **thousandths** of a point in integers, so that a
//! group worth `12.5` or `33.333` points (as most CMS tasks have) is exact, and sums never drift
//! as floating point would.
//!
//! Where whole points are needed (the daemon's store keeps a submission's score and shows each
//! group's points as integers), `apportion` turns the groups' exact points into whole ones
//! that add up to the exact total rounded down, and a submission's whole score is its exact
//! score rounded down ([`whole`]): a full solution then scores exactly the sum of the whole
//! points, and no score is ever above it.

/// Thousandths in one point.
pub const MILLI: u32 = 1000;

/// Points given as a TOML value: a non-negative integer, or a number with at most three
/// decimals (`12.5`, `33.333`); the error says what was wrong.
pub(crate) fn from_toml(v: &toml::Value) -> Result<u32, String> {
    match v {
        toml::Value::Integer(n) if *n >= 0 && *n <= (u32::MAX / MILLI) as i64 => {
            Ok(*n as u32 * MILLI)
        }
        toml::Value::Float(f) => from_f64(*f).ok_or_else(|| {
            format!("{f}: expected a non-negative number of points with at most three decimals")
        }),
        _ => Err("expected a non-negative number of points (at most three decimals)".into()),
    }
}

/// `x` points in thousandths when it has at most three decimals (within rounding of the
/// binary fraction) and fits.
pub fn from_f64(x: f64) -> Option<u32> {
    let m = x * MILLI as f64;
    let r = m.round();
    (x.is_finite() && x >= 0.0 && (m - r).abs() < 1e-6 * m.abs().max(1.0) && r <= u32::MAX as f64)
        .then_some(r as u32)
}

/// Thousandths as a number for problem.toml and reports: `30`, `12.5`, `3.334`.
pub fn to_text(milli: u32) -> String {
    let (w, f) = (milli / MILLI, milli % MILLI);
    if f == 0 {
        return w.to_string();
    }
    let frac = format!("{f:03}");
    format!("{w}.{}", frac.trim_end_matches('0'))
}

/// The exact `milli` rounded down to whole points.
pub fn whole(milli: u64) -> u32 {
    (milli / MILLI as u64).min(u32::MAX as u64) as u32
}

/// Whole points for parts worth `milli` thousandths each: each part's points rounded down, then
/// one more point to the parts with the largest remainders (the first ones on a tie) until they
/// add up to the exact total rounded down.
pub(crate) fn apportion(milli: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = milli.iter().map(|m| m / MILLI).collect();
    let total = whole(milli.iter().map(|&m| m as u64).sum());
    let mut left = total.saturating_sub(out.iter().sum());
    let mut order: Vec<usize> = (0..milli.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(milli[i] % MILLI));
    for i in order {
        if left == 0 || milli[i].is_multiple_of(MILLI) {
            break;
        }
        out[i] += 1;
        left -= 1;
    }
    out
}

/// `total` points (in thousandths) split into `n` parts in thousandths that add up to it
/// exactly: `100` over 30 tests is 3.334 for the first ten and 3.333 for the rest.
pub fn split(total_milli: u64, n: usize) -> Vec<u32> {
    if n == 0 {
        return Vec::new();
    }
    let (each, extra) = (total_milli / n as u64, (total_milli % n as u64) as usize);
    (0..n)
        .map(|i| (each + u64::from(i < extra)).min(u32::MAX as u64) as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsing_and_text() {
        let f = |x: f64| from_toml(&toml::Value::Float(x));
        assert_eq!(from_toml(&toml::Value::Integer(30)), Ok(30_000));
        assert_eq!(f(12.5), Ok(12_500));
        assert_eq!(f(33.333), Ok(33_333));
        assert_eq!(f(0.1), Ok(100));
        assert!(f(1.0001).is_err());
        assert!(f(-1.0).is_err());
        assert!(from_toml(&toml::Value::Integer(-3)).is_err());
        assert!(from_toml(&toml::Value::String("5".into())).is_err());
        for m in [0, 30_000, 12_500, 3_334, 100, 33_333] {
            assert_eq!(
                from_f64(to_text(m).parse().unwrap()),
                Some(m),
                "{}",
                to_text(m)
            );
        }
        assert_eq!(to_text(12_500), "12.5");
        assert_eq!(to_text(3_334), "3.334");
        assert_eq!(to_text(30_000), "30");
    }

    #[test]
    fn whole_points_add_up() {
        assert_eq!(apportion(&[33_330, 33_330, 33_340]), vec![33, 33, 34]);
        assert_eq!(
            apportion(&[12_500, 12_500, 37_500, 37_500]),
            vec![13, 13, 37, 37]
        );
        assert_eq!(apportion(&[10_000, 20_000]), vec![10, 20]);
        // 3 × 33.33 = 99.99: 99 whole points, as a full solution's score rounds down.
        assert_eq!(apportion(&[33_330; 3]).iter().sum::<u32>(), 99);
        let parts = split(100_000, 30);
        assert_eq!(parts.iter().map(|&m| m as u64).sum::<u64>(), 100_000);
        assert_eq!((parts[0], parts[29]), (3_334, 3_333));
        assert_eq!(apportion(&parts).iter().sum::<u32>(), 100);
        assert_eq!(whole(99_999), 99);
    }
}
