//! The order of a program's reactions: each port's connection chain resolved to the slot that
//! holds its value, the writers' checks (one source per chain, one reactor per slot), the
//! reaction graph's edges (writer before reader through every slot, and declaration order within
//! each reactor), and its levels, a causality cycle reported with the reactions on it.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use super::Access;
use crate::builder::ProgramBuilder;
use crate::error::BuildError;

impl ProgramBuilder {
    /// The head of each port's connection chain.
    pub(super) fn resolve_slots(&self) -> Result<Vec<u32>, BuildError> {
        let n = self.ports.len();
        let mut slot = vec![u32::MAX; n];
        for (p, s) in slot.iter_mut().enumerate() {
            let mut q = p as u32;
            let mut steps = 0;
            while let Some(up) = self.ports[q as usize].upstream {
                q = up;
                steps += 1;
                if steps > n {
                    return Err(BuildError::PortLoop(self.ports[p].name.clone()));
                }
            }
            *s = q;
        }
        Ok(slot)
    }

    /// belong to one reactor; no reaction reads a slot it writes.
    pub(super) fn check_writers(
        &self,
        slot_of: &[u32],
        access: &[Access],
    ) -> Result<(), BuildError> {
        let mut writer_reactor: Vec<Option<(u32, u32)>> = vec![None; self.ports.len()];
        for (ri, (r, a)) in self.reactions.iter().zip(access).enumerate() {
            for &(start, len) in &a.writes {
                for p in start..start + len {
                    let port = &self.ports[p as usize];
                    if let Some(up) = port.upstream {
                        return Err(BuildError::MultipleSources {
                            port: port.name.clone(),
                            sources: vec![self.ports[up as usize].name.clone(), r.name.clone()],
                        });
                    }
                    match writer_reactor[p as usize] {
                        Some((other, other_r)) if other != r.reactor => {
                            return Err(BuildError::MultipleSources {
                                port: port.name.clone(),
                                sources: vec![
                                    self.reactions[other_r as usize].name.clone(),
                                    r.name.clone(),
                                ],
                            })
                        }
                        _ => writer_reactor[p as usize] = Some((r.reactor, ri as u32)),
                    }
                }
            }
            for &(start, len) in &a.reads {
                for p in start..start + len {
                    let s = slot_of[p as usize];
                    if a.writes.iter().any(|&(ws, wl)| (ws..ws + wl).contains(&s)) {
                        return Err(BuildError::InvalidDeclaration {
                            reaction: r.name.clone(),
                            element: self.ports[p as usize].name.clone(),
                            reason: "it reads the value of a port it also writes",
                        });
                    }
                }
            }
        }
        for (p, port) in self.ports.iter().enumerate() {
            if port.required && port.upstream.is_none() && writer_reactor[p].is_none() {
                return Err(BuildError::UnconnectedInput(port.name.clone()));
            }
        }
        Ok(())
    }

    /// The reaction graph: writer -> reader through every slot, and declaration order within each
    /// reactor.
    pub(super) fn edges(
        &self,
        slot_of: &[u32],
        access: &[Access],
    ) -> (Vec<Vec<u32>>, Vec<Vec<u32>>) {
        let n = self.reactions.len();
        let mut writers: Vec<Vec<u32>> = vec![Vec::new(); self.ports.len()];
        for (ri, a) in access.iter().enumerate() {
            for &(start, len) in &a.writes {
                for p in start..start + len {
                    writers[p as usize].push(ri as u32);
                }
            }
        }
        let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (ri, a) in access.iter().enumerate() {
            for &(start, len) in &a.reads {
                for p in start..start + len {
                    preds[ri].extend_from_slice(&writers[slot_of[p as usize] as usize]);
                }
            }
        }
        let mut last_of_reactor: Vec<Option<u32>> = vec![None; self.reactors.len()];
        for (ri, r) in self.reactions.iter().enumerate() {
            if let Some(prev) = last_of_reactor[r.reactor as usize] {
                preds[ri].push(prev);
            }
            last_of_reactor[r.reactor as usize] = Some(ri as u32);
        }
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (ri, p) in preds.iter_mut().enumerate() {
            p.sort_unstable();
            p.dedup();
            p.retain(|&q| q as usize != ri);
            for &q in p.iter() {
                succs[q as usize].push(ri as u32);
            }
        }
        (preds, succs)
    }

    /// Levels by peeling the graph (Kahn); a cycle is reported with the reactions on it.
    pub(super) fn levels(
        &self,
        preds: &[Vec<u32>],
        succs: &[Vec<u32>],
    ) -> Result<Vec<u32>, BuildError> {
        let n = preds.len();
        let mut indeg: Vec<usize> = preds.iter().map(Vec::len).collect();
        let mut level = vec![0u32; n];
        let mut queue: Vec<u32> = (0..n as u32).filter(|&r| indeg[r as usize] == 0).collect();
        let mut seen = 0;
        while let Some(r) = queue.pop() {
            seen += 1;
            for &s in &succs[r as usize] {
                level[s as usize] = level[s as usize].max(level[r as usize] + 1);
                indeg[s as usize] -= 1;
                if indeg[s as usize] == 0 {
                    queue.push(s);
                }
            }
        }
        if seen == n {
            return Ok(level);
        }
        // Walk predecessors among the unpeeled reactions until one repeats: that is a cycle.
        let start = (0..n).find(|&r| indeg[r] > 0).unwrap_or(0) as u32;
        let mut path = vec![start];
        let mut cur = start;
        while let Some(&next) = preds[cur as usize].iter().find(|&&p| indeg[p as usize] > 0) {
            if let Some(pos) = path.iter().position(|&x| x == next) {
                let mut cycle: Vec<String> = path[pos..]
                    .iter()
                    .rev()
                    .map(|&r| self.reactions[r as usize].name.clone())
                    .collect();
                cycle.push(cycle[0].clone());
                return Err(BuildError::Cycle(cycle));
            }
            path.push(next);
            cur = next;
        }
        Err(BuildError::Cycle(vec![self.reactions[start as usize]
            .name
            .clone()]))
    }
}
