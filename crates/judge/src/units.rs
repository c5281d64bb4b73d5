//! Units as types: parsing of human durations ("500ms", "1.5s") and byte sizes ("256MiB") as they
//! appear in `problem.toml` and `config.toml`, with serde support so the raw manifests can hold them.

use std::fmt;
use std::time::Duration;

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

/// A byte count parsed from "64MiB", "512KiB", "1GiB", "100MB" or a bare integer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ByteSize(pub u64);

impl ByteSize {
    /// `n` mebibytes.
    pub const fn mib(n: u64) -> Self {
        ByteSize(n * 1024 * 1024)
    }
    /// The count in bytes.
    pub fn bytes(self) -> u64 {
        self.0
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
        for (name, size) in UNITS {
            if self.0 >= size && self.0.is_multiple_of(size) {
                return write!(f, "{}{}", self.0 / size, name);
            }
        }
        write!(f, "{}B", self.0)
    }
}

/// Parses a byte size; the error text is written to complete "expected ...".
pub fn parse_bytes(text: &str) -> Result<ByteSize, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num
        .parse()
        .map_err(|_| format!("a size like \"256MiB\" or \"512KiB\", found {text:?}"))?;
    let mult: u64 = match unit.trim() {
        "" | "B" => 1,
        "K" | "KB" | "k" | "kB" => 1000,
        "KiB" => 1 << 10,
        "M" | "MB" => 1_000_000,
        "MiB" => 1 << 20,
        "G" | "GB" => 1_000_000_000,
        "GiB" => 1 << 30,
        _ => {
            return Err(format!(
                "a size like \"256MiB\" or \"512KiB\", found {text:?}"
            ))
        }
    };
    if !value.is_finite() || value < 0.0 {
        return Err(format!("a non-negative size, found {text:?}"));
    }
    Ok(ByteSize((value * mult as f64).round() as u64))
}

/// Parses a duration: "1s", "500ms", "2.5s", "1m", "250us", "12h", "30d".
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let expected = || format!("a duration like \"1s\" or \"500ms\", found {text:?}");
    let value: f64 = num.parse().map_err(|_| expected())?;
    let secs = match unit.trim() {
        "s" => value,
        "ms" => value / 1e3,
        "us" | "µs" => value / 1e6,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        "d" => value * 86400.0,
        _ => return Err(expected()),
    };
    if !secs.is_finite() || !(0.0..=1e9).contains(&secs) {
        return Err(expected());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Formats a duration the way `parse_duration` reads it back.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) && ms > 0 {
        format!("{}s", ms / 1000)
    } else if d.subsec_nanos().is_multiple_of(1_000_000) {
        format!("{ms}ms")
    } else {
        format!("{}us", d.as_micros())
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Int(n) => Ok(ByteSize(n)),
            Raw::Text(s) => parse_bytes(&s).map_err(|e| de::Error::custom(format!("expected {e}"))),
        }
    }
}

impl Serialize for ByteSize {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

/// Serde adapter for `Duration` fields written as "1s"/"500ms".
pub mod duration_text {
    use super::*;

    /// Reads "1s", "500ms", "2m".
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        let s = String::deserialize(d)?;
        parse_duration(&s).map_err(|e| de::Error::custom(format!("expected {e}")))
    }

    /// Writes the shortest exact form.
    pub fn serialize<S: Serializer>(v: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format_duration(*v))
    }
}

/// Serde adapter for `Option<Duration>`.
pub(crate) mod opt_duration_text {
    use super::*;

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Duration>, D::Error> {
        let s = Option::<String>::deserialize(d)?;
        s.map(|s| parse_duration(&s).map_err(|e| de::Error::custom(format!("expected {e}"))))
            .transpose()
    }

    pub(crate) fn serialize<S: Serializer>(v: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(d) => s.serialize_str(&format_duration(*d)),
            None => s.serialize_none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        let table = [
            ("1s", 1000),
            ("500ms", 500),
            ("2.5s", 2500),
            (" 10ms ", 10),
            ("1m", 60_000),
            ("12h", 43_200_000),
            ("30d", 2_592_000_000),
        ];
        for (text, ms) in table {
            assert_eq!(
                parse_duration(text).unwrap(),
                Duration::from_millis(ms),
                "{text}"
            );
        }
        for bad in ["", "1", "fast", "-1s", "1w", "1.2.3s", "40000d"] {
            assert!(parse_duration(bad).is_err(), "{bad} should fail");
        }
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
        assert_eq!(format_duration(Duration::from_secs(2)), "2s");
    }

    #[test]
    fn sizes() {
        let table = [
            ("256MiB", 256 << 20),
            ("32768KiB", 32 << 20),
            ("1GiB", 1 << 30),
            ("100", 100),
            ("1.5MiB", 3 << 19),
            ("1MB", 1_000_000),
        ];
        for (text, bytes) in table {
            assert_eq!(parse_bytes(text).unwrap().bytes(), bytes, "{text}");
        }
        for bad in ["", "MiB", "12 parsecs", "-5MiB"] {
            assert!(parse_bytes(bad).is_err(), "{bad} should fail");
        }
        assert_eq!(ByteSize::mib(64).to_string(), "64MiB");
        assert_eq!(ByteSize(1000).to_string(), "1000B");
    }
}
