//! Lowercase hexadecimal, the one way ojd writes bytes as text: content hashes (answers, compile
//! and results caches, blobs), tokens and ids derived from hashes.

/// `bytes` as lowercase hexadecimal, two digits a byte.
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0x0f)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_lowercase_digits_a_byte() {
        assert_eq!(super::encode(&[]), "");
        assert_eq!(super::encode(&[0x00, 0x0f, 0xa0, 0xff, 0x5c]), "000fa0ff5c");
        let all: Vec<u8> = (0..=255).collect();
        let want: String = all.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(super::encode(&all), want);
    }
}
