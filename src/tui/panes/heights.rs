//! Row heights of the conversation's cells in a Fenwick tree: a cell's height changes, the
//! total and "which cell holds line y" are all O(log n), so a frame's work does not grow with
//! the history (a streamed delta changes the last cell only).

#[derive(Default)]
pub struct Heights {
    vals: Vec<usize>,
    /// 1-based Fenwick tree: tree[i] = sum of vals[i - lowbit(i) .. i].
    tree: Vec<usize>,
    total: usize,
}

fn lowbit(i: usize) -> usize {
    i & i.wrapping_neg()
}

impl Heights {
    pub fn len(&self) -> usize {
        self.vals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }

    pub fn total(&self) -> usize {
        self.total
    }

    pub fn get(&self, i: usize) -> usize {
        self.vals[i]
    }

    /// Sum of the first `n` heights.
    pub fn prefix(&self, n: usize) -> usize {
        let mut i = n.min(self.vals.len());
        let mut s = 0;
        while i > 0 {
            s += self.tree[i];
            i -= lowbit(i);
        }
        s
    }

    pub fn push(&mut self, h: usize) {
        if self.tree.is_empty() {
            self.tree.push(0);
        }
        let i = self.vals.len() + 1;
        // The node covers (i - lowbit(i), i]: this value plus the ones before it in range.
        let node = h + self.prefix(i - 1) - self.prefix(i - lowbit(i));
        self.vals.push(h);
        self.tree.push(node);
        self.total += h;
    }

    pub fn set(&mut self, i: usize, h: usize) {
        let old = self.vals[i];
        if old == h {
            return;
        }
        self.vals[i] = h;
        self.total = self.total - old + h;
        let mut j = i + 1;
        while j < self.tree.len() {
            // Every node stays a sum of non-negative heights, so wrapping is exact.
            self.tree[j] = self.tree[j].wrapping_sub(old).wrapping_add(h);
            j += lowbit(j);
        }
    }

    /// Replaces every height at once, in O(n).
    pub fn rebuild(&mut self, vals: Vec<usize>) {
        let n = vals.len();
        let mut tree = vec![0; n + 1];
        for (k, v) in vals.iter().enumerate() {
            let i = k + 1;
            tree[i] += v;
            let parent = i + lowbit(i);
            if parent <= n {
                let t = tree[i];
                tree[parent] += t;
            }
        }
        self.total = vals.iter().sum();
        self.vals = vals;
        self.tree = tree;
    }

    /// The cell that holds line `y` and the line it starts at (zero-height cells are never
    /// returned); `(len, total)` when `y` is past the end.
    pub fn find(&self, y: usize) -> (usize, usize) {
        let n = self.vals.len();
        let mut pos = 0;
        let mut rem = y;
        let mut step = if n == 0 {
            0
        } else {
            1 << (usize::BITS - 1 - n.leading_zeros())
        };
        while step > 0 {
            let next = pos + step;
            if next <= n && self.tree[next] <= rem {
                pos = next;
                rem -= self.tree[next];
            }
            step >>= 1;
        }
        (pos, y - rem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_find(v: &[usize], y: usize) -> (usize, usize) {
        let mut start = 0;
        for (i, h) in v.iter().enumerate() {
            if y < start + h {
                return (i, start);
            }
            start += h;
        }
        (v.len(), start)
    }

    #[test]
    fn matches_a_plain_walk() {
        let mut h = Heights::default();
        let mut v: Vec<usize> = Vec::new();
        // A fixed pseudo-random sequence of pushes and updates (zeros included).
        let mut x: u64 = 12345;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize
        };
        for step in 0..600 {
            if step % 3 == 0 || v.is_empty() {
                let val = next() % 5;
                h.push(val);
                v.push(val);
            } else {
                let i = next() % v.len();
                let val = next() % 7;
                h.set(i, val);
                v[i] = val;
            }
            if step % 50 == 0 {
                h.rebuild(v.clone());
            }
            assert_eq!(h.total(), v.iter().sum::<usize>());
            for n in [0, v.len() / 2, v.len()] {
                assert_eq!(h.prefix(n), v[..n].iter().sum::<usize>());
            }
            for y in 0..h.total() + 2 {
                assert_eq!(h.find(y), naive_find(&v, y), "y={y} v={v:?}");
            }
        }
        assert_eq!(h.len(), v.len());
        assert_eq!(h.get(0), v[0]);
    }
}
