//! [`effect`] and [`memo`]: leptos' `Effect::new` and `Memo::new` with the closure boxed.
//!
//! Both are generic over their closure, so each call site brought its own copy of the
//! effect's task and scope code or of the memo's constructor. Boxed, the closures all
//! have one type per value type, and the page carries one copy per value type (`()`,
//! `bool`, `Option<String>`, ...). They behave as `Effect::new` and `Memo::new`: the
//! closure runs as theirs, tracked the same way.

use leptos::prelude::*;

/// `Effect::new(f)`: runs `f` now and again whenever something it read changes, with
/// what it returned last time.
pub fn effect<T: 'static>(f: impl FnMut(Option<T>) -> T + 'static) {
    effect_boxed(Box::new(f));
}

/// The one `Effect::new` per value type.
fn effect_boxed<T: 'static>(f: Box<dyn FnMut(Option<T>) -> T>) {
    Effect::new(f);
}

/// `Memo::new(f)`: `f`'s value, computed again when something it read changes, and
/// telling its readers only when the value differs.
pub fn memo<T>(f: impl Fn(Option<&T>) -> T + Send + Sync + 'static) -> Memo<T>
where
    T: PartialEq + Send + Sync + 'static,
{
    memo_boxed(Box::new(f))
}

/// A memo's closure, boxed: one type per value type.
type MemoFn<T> = Box<dyn Fn(Option<&T>) -> T + Send + Sync>;

/// The one `Memo::new` per value type.
fn memo_boxed<T>(f: MemoFn<T>) -> Memo<T>
where
    T: PartialEq + Send + Sync + 'static,
{
    Memo::new(f)
}
