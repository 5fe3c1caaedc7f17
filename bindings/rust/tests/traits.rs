// SPDX-License-Identifier: BSD-3-Clause
// What the types promise about threads and errors, checked at compile time.
use tensorc::autograd::{EnableGradGuard, Function, GradModeGuard, NoGradGuard};
use tensorc::{Error, Generator, Tensor};

fn is_send<T: Send>() {}
fn is_sync<T: Sync>() {}
fn is_std_error<T: std::error::Error + Send + Sync + 'static>() {}

// `<T as NotSend<_>>::check` resolves only when T is not Send (with Send both
// impls apply and the placeholder is ambiguous): the static_assertions trick.
trait NotSend<A> {
    fn check() {}
}
impl<T: ?Sized> NotSend<()> for T {}
impl<T: ?Sized + Send> NotSend<u8> for T {}

trait NotSync<A> {
    fn check() {}
}
impl<T: ?Sized> NotSync<()> for T {}
impl<T: ?Sized + Sync> NotSync<u8> for T {}

#[test]
fn tensor_is_send_and_not_sync() {
    is_send::<Tensor>();
    <Tensor as NotSync<_>>::check();
}

#[test]
fn grad_mode_guards_stay_on_their_thread() {
    <GradModeGuard as NotSend<_>>::check();
    <NoGradGuard as NotSend<_>>::check();
    <EnableGradGuard as NotSend<_>>::check();
}

#[test]
fn other_handles() {
    is_send::<Generator>();
    is_sync::<Generator>();
    is_send::<Function>();
    is_std_error::<Error>();
    let g = Generator::new(7).unwrap();
    assert_eq!(format!("{:?}", g), "Generator { seed: 7 }");
    let named =
        Function::new("Named", 1, |_c, i| Ok(vec![i[0].tensor()?.clone()]), |_c, g| Ok(vec![Some(g[0].clone())]))
            .unwrap();
    assert_eq!(format!("{:?}", named), "Function { name: \"Named\", n_outputs: 1 }");
    // errors convert into Box<dyn Error> with `?`
    fn f() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        Tensor::from_slice(&[1.0f32], &[2])?;
        Ok(())
    }
    assert!(f().unwrap_err().to_string().starts_with("invalid argument: Tensor::from_slice"));
}
