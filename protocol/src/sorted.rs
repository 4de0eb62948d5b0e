//! Lists of `(id, value)` sorted by id: looked up and set one id at a time by bisection,
//! or in ascending order of id in one pass, the way a frame lists its bodies, so a
//! decoder passes through what it holds once per frame instead of bisecting it per body.

/// Where `id` is in `sorted[from..]` (`Ok`), or where it would go (`Err`), as an index
/// into `sorted`: a galloping search from `from`, which costs one comparison when `id`
/// is at `from` and grows with the log of the distance, never past a bisection's.
pub(crate) fn gallop<T>(sorted: &[(u32, T)], from: usize, id: u32) -> Result<usize, usize> {
    let rest = &sorted[from..];
    let mut bound = 1;
    while bound < rest.len() && rest[bound - 1].0 < id {
        bound *= 2;
    }
    match rest[..bound.min(rest.len())].binary_search_by_key(&id, |&(at, _)| at) {
        Ok(at) => Ok(from + at),
        Err(at) => Err(from + at),
    }
}

/// Lookups in a list sorted by id, of ids in ascending order, as a frame lists its
/// bodies: each starts where the one before ended. With a thousand viewers, what each
/// decoder holds is no longer in the cache when its next frame comes, and a pass in
/// memory order reads it in far fewer misses than a bisection per body.
pub(crate) struct Walk<'a, T> {
    sorted: &'a [(u32, T)],
    at: usize,
}

impl<'a, T: Copy> Walk<'a, T> {
    pub(crate) fn new(sorted: &'a [(u32, T)]) -> Walk<'a, T> {
        Walk { sorted, at: 0 }
    }

    /// The value of `id`, not below any id asked before.
    pub(crate) fn get(&mut self, id: u32) -> Option<T> {
        let found = gallop(self.sorted, self.at, id);
        let (Ok(at) | Err(at)) = found;
        self.at = at;
        found.ok().map(|at| self.sorted[at].1)
    }
}

/// The value of `id` in a list sorted by id: a bisection, for ids that do not come in
/// order.
pub(crate) fn by_id<T: Copy>(sorted: &[(u32, T)], id: u32) -> Option<T> {
    sorted.binary_search_by_key(&id, |&(at, _)| at).ok().map(|at| sorted[at].1)
}

/// Sets the value of `id` in a list sorted by id, keeping it sorted: a bisection, for
/// values that do not come in order of id.
pub(crate) fn set_by_id<T>(sorted: &mut Vec<(u32, T)>, id: u32, value: T) {
    match sorted.binary_search_by_key(&id, |&(at, _)| at) {
        Ok(at) => sorted[at].1 = value,
        Err(at) => sorted.insert(at, (id, value)),
    }
}

/// Sets the values of `ascending` (by id, each id once) in a list sorted by id, keeping
/// it sorted: one pass, as [`Walk`].
pub(crate) fn set_all_by_id<T>(sorted: &mut Vec<(u32, T)>, ascending: impl IntoIterator<Item = (u32, T)>) {
    let mut from = 0;
    for (id, value) in ascending {
        from = match gallop(sorted, from, id) {
            Ok(at) => {
                sorted[at].1 = value;
                at + 1
            }
            Err(at) => {
                sorted.insert(at, (id, value));
                at + 1
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(ids: &[u32]) -> Vec<(u32, u32)> {
        ids.iter().map(|&id| (id, id * 10)).collect()
    }

    #[test]
    fn gallop_finds_what_a_bisection_finds_from_every_start() {
        let sorted = list(&[1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144]);
        for from in 0..=sorted.len() {
            for id in 0..150 {
                let expected = match sorted[from..].binary_search_by_key(&id, |&(at, _)| at) {
                    Ok(at) => Ok(from + at),
                    Err(at) => Err(from + at),
                };
                assert_eq!(gallop(&sorted, from, id), expected, "from {from}, id {id}");
            }
        }
        assert_eq!(gallop::<u32>(&[], 0, 7), Err(0));
    }

    #[test]
    fn a_walk_answers_ascending_ids_as_lookups_would() {
        let sorted = list(&[2, 4, 6, 7, 8, 100, 1000]);
        let asked = [0, 2, 3, 6, 7, 9, 99, 100, 101, 1000, 5000];
        let mut walk = Walk::new(&sorted);
        for id in asked {
            let expected = sorted.iter().find(|&&(at, _)| at == id).map(|&(_, v)| v);
            assert_eq!(walk.get(id), expected, "id {id}");
        }
    }

    #[test]
    fn setting_in_one_pass_updates_inserts_and_keeps_the_order() {
        let mut sorted = list(&[2, 4, 6]);
        set_all_by_id(&mut sorted, [(1, 1), (4, 44), (5, 55), (6, 66), (9, 99)]);
        assert_eq!(sorted, vec![(1, 1), (2, 20), (4, 44), (5, 55), (6, 66), (9, 99)]);
        let mut empty = Vec::new();
        set_all_by_id(&mut empty, [(3, 'c'), (7, 'g')]);
        assert_eq!(empty, vec![(3, 'c'), (7, 'g')]);
        set_all_by_id(&mut empty, []);
        assert_eq!(empty, vec![(3, 'c'), (7, 'g')]);
    }
}
