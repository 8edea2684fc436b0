//! Savina's A* grid graph: `g³` nodes, each linked forward to some of its neighbours in {0, 1}³.

use crate::random::JavaRandom;

/// The seed of Savina's graph (`new Random(123456)`).
const SEED: i64 = 123_456;

/// The graph, read-only once built: node `id = g²·i + g·j + k` for (i, j, k).
pub(crate) struct Graph {
    g: usize,
    /// Neighbours of node `v`: `targets[offsets[v]..offsets[v + 1]]`, in the order added.
    offsets: Vec<u32>,
    targets: Vec<u32>,
}

impl Graph {
    /// Builds Savina's graph for grid size `g` (untimed, in `prepare`).
    ///
    /// Savina visits the nodes in the iteration order of a `HashMap<Integer, GridNode>` with every
    /// id below its table size, which is by `id ^ (id >>> 16)`. Each node tries the offsets in
    /// {0,1}³ other than (0,0,0) and (1,1,1), in loop order, adding each when `nextBoolean()`
    /// says so; the last one is added without a draw when none was. Offsets are clamped at the
    /// grid's edge; a link to itself or a repeated link is skipped.
    pub(crate) fn new(g: usize) -> Graph {
        let n = g * g * g;
        let mut random = JavaRandom::new(SEED);
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_by_key(|&id| id ^ (id >> 16));
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &id in &order {
            let (i, j, k) = Self::coords_in(g, id);
            let list = &mut lists[id as usize];
            let mut tried = 0;
            for (di, dj, dk) in (0..8).map(|o| (o >> 2, (o >> 1) & 1, o & 1)) {
                tried += 1;
                if tried == 1 || tried == 8 {
                    continue;
                }
                let add = (tried == 7 && list.is_empty()) || random.next_boolean();
                if add {
                    let clamp = |x: usize, d: usize| (x + d).min(g - 1);
                    let to = (g * g * clamp(i, di) + g * clamp(j, dj) + clamp(k, dk)) as u32;
                    if to != id && !list.contains(&to) {
                        list.push(to);
                    }
                }
            }
        }
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        let mut targets = Vec::new();
        for list in lists {
            targets.extend_from_slice(&list);
            offsets.push(targets.len() as u32);
        }
        Graph {
            g,
            offsets,
            targets,
        }
    }

    fn coords_in(g: usize, id: u32) -> (usize, usize, usize) {
        let id = id as usize;
        (id / (g * g), (id / g) % g, id % g)
    }

    /// How many nodes.
    pub(crate) fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Node `v`'s neighbours.
    pub(crate) fn neighbours(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// The origin, node (0, 0, 0).
    pub(crate) fn origin(&self) -> u32 {
        0
    }

    /// The target, node (⌊0.8g⌋, ⌊0.8g⌋, ⌊0.8g⌋).
    pub(crate) fn target(&self) -> u32 {
        let a = (0.80 * self.g as f64) as usize;
        (a * self.g * self.g + a * self.g + a) as u32
    }

    /// Savina's `distanceFrom`, truncated as its `setParent` does: `(int) √(Δi² + Δj² + Δk²)`.
    pub(crate) fn distance(&self, a: u32, b: u32) -> u32 {
        let (ai, aj, ak) = Self::coords_in(self.g, a);
        let (bi, bj, bk) = Self::coords_in(self.g, b);
        let d2 = [(ai, bi), (aj, bj), (ak, bk)]
            .iter()
            .map(|&(x, y)| x.abs_diff(y).pow(2))
            .sum::<usize>();
        (d2 as f64).sqrt() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::Graph;

    #[test]
    fn links_go_forward_and_every_inner_node_has_one() {
        let g = Graph::new(6);
        assert_eq!(g.len(), 216);
        assert_eq!(g.target(), 4 * 36 + 4 * 6 + 4);
        for v in 0..g.len() as u32 {
            let list = g.neighbours(v);
            let (i, j, _) = Graph::coords_in(6, v);
            if i < 5 && j < 5 {
                // The (1, 1, 0) offset is forced when nothing else was added.
                assert!(!list.is_empty(), "node {v} has no link");
            }
            for &w in list {
                assert!(w > v, "{v} -> {w} goes backwards");
                assert!(g.distance(v, w) >= 1);
            }
        }
    }

    /// The default graph (g = 30): 27,000 nodes and 78,712 links.
    #[test]
    fn default_graph_size() {
        let g = Graph::new(30);
        assert_eq!(g.len(), 27_000);
        assert_eq!(g.targets.len(), 78_712);
    }
}
