//! A file's problems as its readers keep them: the first [`MAX_PROBLEMS`] whole, and past
//! them each one counted, on the first kept problem of its kind where there is one
//! ([`Problem::count`], which grouping sums), else among those not listed. A file of
//! millions of broken cells costs the memory of a thousand problems, and every count said
//! of it is exact.

use std::collections::HashMap;

use crate::diag::{MAX_PROBLEMS, Problem};

#[derive(Debug, Default)]
pub struct Kept {
    problems: Vec<Problem>,
    /// The first kept problem of each kind (by field and [`Problem::kind_key`]): its index.
    first: HashMap<(Option<String>, String), usize>,
    /// Problems past the bound of no kind kept: counted, not listed.
    unlisted: u64,
    /// The first line of those.
    unlisted_at: Option<u64>,
}

impl Kept {
    /// Keeps `problem` while there is room, else counts it (with what it already stands
    /// for) on the first kept one of its kind, or among those not listed.
    pub fn push(&mut self, problem: Problem) {
        let key = problem.kind_key().map(|kind| (problem.field.clone(), kind));
        if self.problems.len() < MAX_PROBLEMS {
            if let Some(key) = key {
                self.first.entry(key).or_insert(self.problems.len());
            }
            self.problems.push(problem);
            return;
        }
        match key.and_then(|key| self.first.get(&key)) {
            Some(&i) => self.problems[i].count += problem.count,
            None => self.count_unlisted(problem.count, problem.line),
        }
    }

    /// Keeps `problem` whatever the room: one that must be said (the file cannot be read).
    pub fn listed(&mut self, problem: Problem) {
        self.problems.push(problem);
    }

    /// Takes in what `other` kept and counted, its lines `shift` lines on (a part of the
    /// file read on its own counts them from its start).
    pub fn absorb(&mut self, other: Kept, shift: u64) {
        for mut problem in other.problems {
            problem.line = problem.line.map(|l| l + shift);
            self.push(problem);
        }
        if other.unlisted > 0 {
            self.count_unlisted(other.unlisted, other.unlisted_at.map(|l| l + shift));
        }
    }

    fn count_unlisted(&mut self, n: u64, line: Option<u64>) {
        self.unlisted += n;
        self.unlisted_at = match (self.unlisted_at, line) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
    }

    /// Keeps only the problems `keep` says (what it counted stays counted).
    pub fn retain(&mut self, keep: impl Fn(&Problem) -> bool) {
        let problems = std::mem::take(&mut self.problems);
        self.first.clear();
        for problem in problems.into_iter().filter(|p| keep(p)) {
            self.push(problem);
        }
    }

    /// The problems kept, placed in the file `path` (at walk position `file`), and after
    /// them, when some were only counted, one at the first of those's line that says how
    /// many are not listed (standing for them: its count).
    pub fn into_vec(self, file: usize, path: &std::path::Path) -> Vec<Problem> {
        let mut problems: Vec<Problem> =
            self.problems.into_iter().map(|p| p.at(file, path)).collect();
        if self.unlisted > 0 {
            let last = self.unlisted_at.or_else(|| problems.iter().filter_map(|p| p.line).max());
            let n = self.unlisted;
            let message = format!(
                "{n} more problem{} in this file {} not listed: only its first {MAX_PROBLEMS} are, and those like one of them are counted with it",
                if n == 1 { "" } else { "s" },
                if n == 1 { "is" } else { "are" },
            );
            let mut more = Problem::new(file, path, last, message);
            more.count = n;
            problems.push(more);
        }
        problems
    }
}

impl From<Vec<Problem>> for Kept {
    fn from(problems: Vec<Problem>) -> Kept {
        let mut kept = Kept::default();
        problems.into_iter().for_each(|p| kept.push(p));
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad(line: u64, field: &str, value: &str) -> Problem {
        Problem::unplaced(Some(line), format!("{value:?} is not a number"))
            .with_field(field)
            .with_value(value)
    }

    fn listed(kept: Kept) -> Vec<Problem> {
        kept.into_vec(0, std::path::Path::new("data/a.csv"))
    }

    #[test]
    fn past_the_bound_each_problem_is_counted_on_its_kind_or_as_not_listed() {
        let mut kept = Kept::default();
        for line in 1..=5_000 {
            kept.push(bad(line, "rating", &format!("x{line}")));
        }
        // Past the bound: a kind kept is counted on its first; another kind, and a
        // problem of no kind, are counted as not listed.
        kept.push(bad(5_001, "price", "y"));
        kept.push(Problem::unplaced(Some(5_002), "record has 3 fields, the header has 2"));
        let problems = listed(kept);
        assert_eq!(problems.len(), MAX_PROBLEMS + 1);
        assert_eq!(problems[0].count, 4_001, "the first of its kind stands for the uncounted");
        assert!(problems[1..MAX_PROBLEMS].iter().all(|p| p.count == 1));
        let more = &problems[MAX_PROBLEMS];
        assert_eq!(more.count, 2);
        assert_eq!(more.line, Some(5_001), "at the first one not listed");
        assert!(more.message.starts_with("2 more problems in this file are not listed"));
        assert_eq!(crate::diag::count(&problems), 5_002);
        // Grouped, the 5,000 are one problem that says 5,000.
        let grouped = crate::diag::group_repeats(problems);
        assert_eq!(grouped.len(), 2);
        assert_eq!(grouped[0].count, 5_000);
        let words = "5000 values in this file are like this one (lines 1, 2, 3, 4, 5, …)";
        assert!(grouped[0].message.starts_with(words), "{}", grouped[0].message);
        assert_eq!(crate::diag::count(&grouped), 5_002);
    }

    #[test]
    fn absorbing_a_part_keeps_its_counts_and_moves_its_lines() {
        let mut part = Kept::default();
        for line in 1..=1_500 {
            part.push(bad(line, "rating", "x"));
        }
        part.push(Problem::unplaced(Some(1_501), "malformed CSV"));
        let mut file = Kept::default();
        file.push(bad(1, "lat", "q"));
        file.absorb(part, 10);
        assert_eq!(file.problems[1].line, Some(11));
        assert_eq!(crate::diag::count(&file.problems) + file.unlisted, 1 + 1_500 + 1);
        // What a retain drops is no longer counted; what it keeps is, and the unlisted.
        file.retain(|p| p.field.as_deref() == Some("rating"));
        let problems = listed(file);
        assert_eq!(problems[0].line, Some(11));
        assert_eq!(crate::diag::count(&problems), 1_500 + 1);
    }
}
