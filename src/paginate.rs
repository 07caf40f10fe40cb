//! Page arithmetic, pure: how many pages a listing has and which items each holds.

use std::ops::Range;

/// `max(1, ceil(total / size))`: an empty listing still has one (empty) page.
pub fn total_pages(total: usize, size: usize) -> usize {
    assert!(size > 0, "page sizes are validated to be positive");
    total.div_ceil(size).max(1)
}

/// The item indices on 1-based `page`: `(page-1)*size .. min(page*size, total)`.
pub fn items_of_page(total: usize, size: usize, page: usize) -> Range<usize> {
    assert!(page >= 1, "pages are 1-based");
    let start = ((page - 1) * size).min(total);
    start..(start + size).min(total)
}

/// The run of `run` items, counted from the first, that holds all of `items`: `Some(k)` when
/// they all lie in `k*run .. (k+1)*run`, else `None` (they straddle two runs, or there are
/// none). A build copies a run's items once and cuts every page that fits in it from that
/// copy: with page sizes that divide the largest, the largest as the run, every page fits.
pub fn run_of(items: &Range<usize>, run: usize) -> Option<usize> {
    if items.is_empty() || run == 0 {
        return None;
    }
    let k = items.start / run;
    ((items.end - 1) / run == k).then_some(k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_listing_has_one_empty_page() {
        assert_eq!(total_pages(0, 10), 1);
        assert_eq!(items_of_page(0, 10, 1), 0..0);
    }

    #[test]
    fn last_page_is_partial() {
        assert_eq!(total_pages(67, 10), 7);
        assert_eq!(items_of_page(67, 10, 7), 60..67);
        assert_eq!(total_pages(60, 20), 3);
    }

    #[test]
    fn a_page_within_a_run_is_found_in_it() {
        assert_eq!(run_of(&(0..10), 100), Some(0));
        assert_eq!(run_of(&(100..200), 100), Some(1));
        assert_eq!(run_of(&(290..300), 100), Some(2));
        assert_eq!(run_of(&(90..120), 100), None);
        assert_eq!(run_of(&(0..0), 100), None);
        // A size that does not divide the largest: 30's fourth page straddles two runs of 100.
        assert_eq!(run_of(&items_of_page(1000, 30, 4), 100), None);
        assert_eq!(run_of(&items_of_page(1000, 30, 3), 100), Some(0));
    }

    proptest! {
        #[test]
        fn pages_concatenated_give_back_the_input(total in 0usize..5000, size in 1usize..300) {
            let pages = total_pages(total, size);
            let mut next = 0;
            for p in 1..=pages {
                let r = items_of_page(total, size, p);
                prop_assert_eq!(r.start, next);
                next = r.end;
            }
            prop_assert_eq!(next, total);
        }

        #[test]
        fn only_the_last_page_is_short(total in 1usize..5000, size in 1usize..300) {
            let pages = total_pages(total, size);
            for p in 1..pages {
                prop_assert_eq!(items_of_page(total, size, p).len(), size);
            }
            let last = items_of_page(total, size, pages).len();
            prop_assert!(last >= 1 && last <= size);
        }

        #[test]
        fn total_pages_is_the_ceiling_but_at_least_one(total in 0usize..100_000, size in 1usize..1000) {
            let pages = total_pages(total, size);
            prop_assert!(pages >= 1);
            prop_assert!(pages * size >= total);
            prop_assert!(total == 0 || (pages - 1) * size < total);
        }
    }
}
