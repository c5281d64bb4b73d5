//! A team's place beyond its name: its groups (`groups = ["Students", "Women"]`, or one
//! `group`), its country and its seat in the hall (`location`), as a `[[team]]` table of
//! `contest.toml` states them (`read`) and as they are written back (`write`). The
//! Contest API serves them as the team's `group_ids` and `location` and its organization's
//! `country`; a CLICS package's teams bring them.

use serde::Serialize;

/// Where a team sits: the Contest API's `location` (x and y in metres, rotation in degrees
/// from 0 to 360).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Location {
    /// Metres along the hall.
    pub x: f64,
    /// Metres across the hall.
    pub y: f64,
    /// Degrees, 0 to 360.
    pub rotation: f64,
}

// Read only as finite numbers (see `read`), so equality is an equivalence.
impl Eq for Location {}

/// A team's groups (the first is the one it is ranked in for the group awards), country and
/// location.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Place {
    /// Every group, in the order given.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    /// ISO 3166-1 alpha-3 (`NLD`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    /// Its seat.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
}

/// Whether `s` is an ISO 3166-1 alpha-3 code's shape (three capitals).
pub fn is_country(s: &str) -> bool {
    s.len() == 3 && s.bytes().all(|b| b.is_ascii_uppercase())
}

/// The place of a `[[team]]` table `t`; each mistake as (the key, what is wrong), the key
/// being `group`, `groups`, `country` or `location`.
pub(crate) fn read(t: &toml::Table) -> (Place, Vec<(&'static str, String)>) {
    let mut errors = Vec::new();
    let mut place = Place::default();
    match (t.get("group"), t.get("groups")) {
        (Some(_), Some(_)) => errors.push(("groups", "give `group` or `groups`, not both".into())),
        (Some(toml::Value::String(g)), None) => place.groups.extend(nonempty(g)),
        (Some(_), None) => errors.push(("group", "expected a string".into())),
        (None, Some(v)) => {
            let names = v.as_array().and_then(|a| {
                a.iter()
                    .map(|g| g.as_str().map(str::to_string))
                    .collect::<Option<Vec<String>>>()
            });
            match names {
                None => errors.push(("groups", "expected a list of names: [\"A\", \"B\"]".into())),
                Some(names) => {
                    for g in names.iter().filter_map(|g| nonempty(g)) {
                        if place.groups.contains(&g) {
                            errors.push(("groups", format!("{g:?} is listed twice")));
                        } else {
                            place.groups.push(g);
                        }
                    }
                }
            }
        }
        (None, None) => {}
    }
    match t.get("country") {
        None => {}
        Some(toml::Value::String(c)) if is_country(c) => place.country = Some(c.clone()),
        Some(v) => errors.push((
            "country",
            format!("{v} is not a country code (ISO 3166-1 alpha-3: three capitals, \"NLD\")"),
        )),
    }
    if let Some(v) = t.get("location") {
        let num = |k: &str| {
            let x = v.get(k)?;
            x.as_float()
                .or_else(|| x.as_integer().map(|i| i as f64))
                .filter(|f| f.is_finite())
        };
        match (num("x"), num("y"), num("rotation")) {
            (Some(x), Some(y), Some(rotation))
                if v.as_table().is_some_and(|t| t.len() == 3)
                    && (0.0..=360.0).contains(&rotation) =>
            {
                place.location = Some(Location { x, y, rotation })
            }
            _ => errors.push((
                "location",
                "expected { x = 1.5, y = 2, rotation = 90 } (metres, degrees from 0 to 360)".into(),
            )),
        }
    }
    (place, errors)
}

fn nonempty(s: &str) -> Option<String> {
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}

/// The lines of a `[[team]]` table stating `place` (`quote` makes a TOML string).
pub(crate) fn write(place: &Place, quote: impl Fn(&str) -> String) -> String {
    let mut s = String::new();
    match &place.groups[..] {
        [] => {}
        [one] => s.push_str(&format!("group = {}\n", quote(one))),
        many => {
            let names: Vec<String> = many.iter().map(|g| quote(g)).collect();
            s.push_str(&format!("groups = [{}]\n", names.join(", ")));
        }
    }
    if let Some(c) = &place.country {
        s.push_str(&format!("country = {}\n", quote(c)));
    }
    if let Some(l) = &place.location {
        // `{:?}` keeps a float a float (`2.0`), as it was read.
        s.push_str(&format!(
            "location = {{ x = {:?}, y = {:?}, rotation = {:?} }}\n",
            l.x, l.y, l.rotation
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        text.parse().expect("TOML")
    }

    #[test]
    fn groups_country_and_location_read_and_write_back() {
        let t = table(
            "groups = [\"Students\", \"Women\"]\ncountry = \"NLD\"\n\
             location = { x = 1.5, y = 2, rotation = 90 }\n",
        );
        let (place, errors) = read(&t);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(place.groups, ["Students", "Women"]);
        assert_eq!(place.country.as_deref(), Some("NLD"));
        assert_eq!(
            place.location,
            Some(Location {
                x: 1.5,
                y: 2.0,
                rotation: 90.0
            })
        );
        let written = write(&place, |s| format!("{s:?}"));
        assert_eq!(read(&table(&written)), (place, vec![]));
        // One group is written as `group`, the key every roster knows.
        let (one, _) = read(&table("group = \"Students\""));
        assert_eq!(write(&one, |s| format!("{s:?}")), "group = \"Students\"\n");
    }

    #[test]
    fn each_mistake_names_its_key() {
        let cases = [
            ("group = \"A\"\ngroups = [\"B\"]", "groups", "not both"),
            ("groups = \"A\"", "groups", "expected a list"),
            ("groups = [\"A\", \"A\"]", "groups", "twice"),
            ("country = \"Netherlands\"", "country", "alpha-3"),
            ("location = { x = 1, y = 2 }", "location", "rotation"),
            (
                "location = { x = 1, y = 2, rotation = 400 }",
                "location",
                "0 to 360",
            ),
        ];
        for (text, key, want) in cases {
            let (_, errors) = read(&table(text));
            assert!(
                errors.iter().any(|(k, m)| *k == key && m.contains(want)),
                "{text}: {errors:?}"
            );
        }
    }
}
