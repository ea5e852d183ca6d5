//! Walking trees: one trait for plans and expressions, in the manner of
//! DataFusion's `common/src/tree_node.rs`.
//!
//! A type implements [`TreeNode`] by saying once how to reach its children
//! ([`TreeNode::apply_children`], [`TreeNode::map_children`]); every walk
//! is built on those two: pre-order [`TreeNode::apply`], [`TreeNode::visit`]
//! (down and up), [`TreeNode::exists`], and the rewrites
//! [`TreeNode::transform_down`] / [`TreeNode::transform_up`]. A closure
//! steers a walk with [`Recursion`].
//!
//! # Depth
//!
//! Plans can be thousands of operators deep (a long join chain, a generated
//! query), deeper than a thread's stack allows plain recursion to go. Every
//! walk here recurses through [`guard`], which moves onto a fresh stack
//! segment on the heap when the current one runs low (the `stacker` crate,
//! as rustc and polars use it): walks, output derivation and dropping a
//! tree work at any depth, on a 2 MiB test thread too. What depth a parser
//! accepts at all is [`DEPTH_BUDGET`], one number for every plan source.

/// Deepest operator nesting any plan source accepts. Deeper input is
/// rejected with [`crate::Error::TooDeep`] naming the depth: real plans are
/// at most a few hundred operators deep (TPC-H: under 60), and the budget
/// only bounds the work a hostile or broken input can cause. Walks do not
/// depend on it: they are safe at any depth (see [`guard`]). Expressions
/// have a budget of their own, applied by the expression parser
/// (`parsers::plan::expr::MAX_NEST`, 1,500): it counts parentheses, calls
/// and every operator of an unparenthesised chain, so no [`crate::Expr`]
/// is deeper than that (printing, cloning and dropping one recurse).
pub const DEPTH_BUDGET: usize = 10_000;

/// How a walk continues after visiting a node (DataFusion's
/// `TreeNodeRecursion`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recursion {
    /// Visit the children next.
    Continue,
    /// Skip this node's children, go on with its siblings.
    Jump,
    /// Stop the whole walk.
    Stop,
}

/// Stack left before a recursive step moves to a new segment.
const RED_ZONE: usize = 256 * 1024;
/// Size of each new stack segment.
const SEGMENT: usize = 4 * 1024 * 1024;

/// Run one step of a recursion, on a fresh heap-allocated stack segment if
/// the current stack is nearly used up. Every recursive walk over plans
/// calls this once per level.
#[inline]
pub fn guard<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

/// A visitor for [`TreeNode::visit`]: called on the way down and, after the
/// children, on the way up.
pub trait TreeNodeVisitor<'n> {
    /// The node type visited.
    type Node: TreeNode;

    /// Before the children. [`Recursion::Jump`] skips the children (`f_up`
    /// still runs for this node); [`Recursion::Stop`] ends the walk.
    fn f_down(&mut self, node: &'n Self::Node) -> Recursion;

    /// After the children. [`Recursion::Stop`] ends the walk; anything else
    /// goes on.
    fn f_up(&mut self, _node: &'n Self::Node) -> Recursion {
        Recursion::Continue
    }
}

/// A tree whose nodes own their children.
pub trait TreeNode: Sized {
    /// Call `f` on each child in order, stopping at the first
    /// [`Recursion::Stop`] (which is returned); else [`Recursion::Continue`].
    fn apply_children<'n, F: FnMut(&'n Self) -> Recursion>(&'n self, f: F) -> Recursion;

    /// Replace each child by `f(child)`, in order.
    fn map_children<F: FnMut(Self) -> Self>(self, f: F) -> Self;

    /// Pre-order walk: `f` on a node, then (on [`Recursion::Continue`]) on
    /// its children.
    fn apply<'n, F: FnMut(&'n Self) -> Recursion>(&'n self, mut f: F) -> Recursion {
        fn go<'n, N: TreeNode, F: FnMut(&'n N) -> Recursion>(n: &'n N, f: &mut F) -> Recursion {
            guard(|| match f(n) {
                Recursion::Continue => n.apply_children(|c| go(c, f)),
                Recursion::Jump => Recursion::Continue,
                Recursion::Stop => Recursion::Stop,
            })
        }
        go(self, &mut f)
    }

    /// Depth-first walk calling the visitor on the way down and up.
    fn visit<'n, V: TreeNodeVisitor<'n, Node = Self>>(&'n self, visitor: &mut V) -> Recursion {
        guard(|| {
            match visitor.f_down(self) {
                Recursion::Continue => {
                    if self.apply_children(|c| c.visit(visitor)) == Recursion::Stop {
                        return Recursion::Stop;
                    }
                }
                Recursion::Jump => {}
                Recursion::Stop => return Recursion::Stop,
            }
            match visitor.f_up(self) {
                Recursion::Stop => Recursion::Stop,
                Recursion::Continue | Recursion::Jump => Recursion::Continue,
            }
        })
    }

    /// Whether any node (this one included) satisfies `pred`; stops at the
    /// first.
    fn exists<F: FnMut(&Self) -> bool>(&self, mut pred: F) -> bool {
        let mut found = false;
        self.apply(|n| {
            if pred(n) {
                found = true;
                Recursion::Stop
            } else {
                Recursion::Continue
            }
        });
        found
    }

    /// Rewrite top-down: `f` on a node, then on the children of what it
    /// returned.
    fn transform_down<F: FnMut(Self) -> Self>(self, mut f: F) -> Self {
        fn go<N: TreeNode, F: FnMut(N) -> N>(n: N, f: &mut F) -> N {
            guard(|| f(n).map_children(|c| go(c, f)))
        }
        go(self, &mut f)
    }

    /// Rewrite bottom-up: the children first, then `f` on the node.
    fn transform_up<F: FnMut(Self) -> Self>(self, mut f: F) -> Self {
        fn go<N: TreeNode, F: FnMut(N) -> N>(n: N, f: &mut F) -> N {
            guard(|| {
                let n = n.map_children(|c| go(c, f));
                f(n)
            })
        }
        go(self, &mut f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal tree to test the provided methods on.
    #[derive(Debug, PartialEq)]
    struct T(u32, Vec<T>);

    impl TreeNode for T {
        fn apply_children<'n, F: FnMut(&'n Self) -> Recursion>(&'n self, mut f: F) -> Recursion {
            for c in &self.1 {
                if f(c) == Recursion::Stop {
                    return Recursion::Stop;
                }
            }
            Recursion::Continue
        }
        fn map_children<F: FnMut(Self) -> Self>(self, f: F) -> Self {
            T(self.0, self.1.into_iter().map(f).collect())
        }
    }

    fn sample() -> T {
        // 1 ( 2 ( 3 4 ) 5 ( 6 ) )
        T(
            1,
            vec![
                T(2, vec![T(3, vec![]), T(4, vec![])]),
                T(5, vec![T(6, vec![])]),
            ],
        )
    }

    #[test]
    fn apply_is_pre_order_and_steered() {
        let t = sample();
        let mut seen = Vec::new();
        t.apply(|n| {
            seen.push(n.0);
            if n.0 == 2 {
                Recursion::Jump
            } else if n.0 == 6 {
                Recursion::Stop
            } else {
                Recursion::Continue
            }
        });
        assert_eq!(seen, [1, 2, 5, 6]);
        assert!(t.exists(|n| n.0 == 4));
        assert!(!t.exists(|n| n.0 == 7));
    }

    #[test]
    fn visit_goes_down_and_up() {
        struct V(Vec<String>);
        impl<'n> TreeNodeVisitor<'n> for V {
            type Node = T;
            fn f_down(&mut self, n: &'n T) -> Recursion {
                self.0.push(format!("+{}", n.0));
                if n.0 == 5 {
                    Recursion::Jump
                } else {
                    Recursion::Continue
                }
            }
            fn f_up(&mut self, n: &'n T) -> Recursion {
                self.0.push(format!("-{}", n.0));
                Recursion::Continue
            }
        }
        let mut v = V(Vec::new());
        sample().visit(&mut v);
        assert_eq!(
            v.0.join(" "),
            "+1 +2 +3 -3 +4 -4 -2 +5 -5 -1",
            "children of 5 skipped, 5 still goes up"
        );
    }

    #[test]
    fn transforms_rewrite_in_the_stated_order() {
        let mut order = Vec::new();
        let t = sample().transform_up(|n| {
            order.push(n.0);
            T(n.0 * 10, n.1)
        });
        assert_eq!(order, [3, 4, 2, 6, 5, 1]);
        assert_eq!(t.1[0].1[1].0, 40);
        let mut order = Vec::new();
        sample().transform_down(|n| {
            order.push(n.0);
            n
        });
        assert_eq!(order, [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn walks_survive_depths_beyond_the_thread_stack() {
        std::thread::spawn(|| {
            let mut t = T(0, vec![]);
            for i in 1..200_000 {
                t = T(i, vec![t]);
            }
            let mut n = 0;
            t.apply(|_| {
                n += 1;
                Recursion::Continue
            });
            assert_eq!(n, 200_000);
            let t = t.transform_up(|x| T(x.0 + 1, x.1));
            assert!(t.exists(|x| x.0 == 1));
            // The test tree's own drop recurses: take it apart by hand.
            let mut stack = vec![t];
            while let Some(mut x) = stack.pop() {
                stack.append(&mut x.1);
            }
        })
        .join()
        .unwrap();
    }
}
