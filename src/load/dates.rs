//! Dates as spreadsheets and other locales write them: what a value refused as a `date` or
//! `datetime` most likely is, and what to write instead. The loaders own the refusal; this
//! adds the why.

use crate::config::FieldType;

/// Why `s`, refused as a value of the date type `kind`, is most likely a spreadsheet's date
/// in a locale's order (`14.03.1998`, `03/14/1998`): the order it reads in, and what to
/// write instead. The same words for every value of one order, so that a column of them
/// is said once (`diag::group_repeats`).
pub fn hint(kind: FieldType, s: &str) -> Option<&'static str> {
    if !matches!(kind, FieldType::Date | FieldType::Datetime) {
        return None;
    }
    let date = s.get(..10).filter(|_| s.len() == 10 || s.as_bytes()[10] == b' ')?;
    let part = |r: std::ops::Range<usize>| date.get(r).and_then(|p| p.parse::<u32>().ok());
    let (first, second, year) = (part(0..2)?, part(3..5)?, part(6..10)?);
    let sep = date.as_bytes()[2];
    if sep != date.as_bytes()[5] || !matches!(sep, b'.' | b'/' | b'-') || year < 1000 {
        return None;
    }
    let day_first = (1..=31).contains(&first) && (1..=12).contains(&second);
    let month_first = (1..=12).contains(&first) && (1..=31).contains(&second);
    let hint = match (sep, day_first, month_first) {
        (b'.', true, _) => {
            "it reads as DD.MM.YYYY, as spreadsheets write dates in many European locales: write YYYY-MM-DD (in the spreadsheet, format the column as YYYY-MM-DD before exporting)"
        }
        (b'/', true, false) | (b'-', true, false) => {
            "it reads as DD/MM/YYYY (day first): write YYYY-MM-DD (in the spreadsheet, format the column as YYYY-MM-DD before exporting)"
        }
        (b'/', false, true) | (b'-', false, true) => {
            "it reads as MM/DD/YYYY (month first, as in the US): write YYYY-MM-DD (in the spreadsheet, format the column as YYYY-MM-DD before exporting)"
        }
        (_, true, true) => {
            "it reads as DD/MM/YYYY or as MM/DD/YYYY, which its numbers cannot tell apart: write YYYY-MM-DD (in the spreadsheet, format the column as YYYY-MM-DD before exporting)"
        }
        _ => return None,
    };
    Some(hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_in_a_locales_order_is_told_its_order_and_others_are_not() {
        let date = |s| hint(FieldType::Date, s).map(|h| h.split(':').next().unwrap().to_string());
        assert_eq!(
            date("14.03.1998").as_deref(),
            Some("it reads as DD.MM.YYYY, as spreadsheets write dates in many European locales")
        );
        assert_eq!(date("14/03/1998").as_deref(), Some("it reads as DD/MM/YYYY (day first)"));
        assert_eq!(
            date("03/14/1998").as_deref(),
            Some("it reads as MM/DD/YYYY (month first, as in the US)")
        );
        assert!(date("05/04/1998").unwrap().contains("cannot tell apart"));
        assert!(hint(FieldType::Datetime, "14.03.1998 10:30").is_some());
        for other in ["1998", "1998-03-14x", "32.13.1998", "14.03.98", "14.03-1998", "ab.cd.efgh"] {
            assert_eq!(date(other), None, "{other}");
        }
        assert_eq!(hint(FieldType::String, "14.03.1998"), None);
    }
}
