// SPDX-License-Identifier: BSD-3-Clause
// Autocast regions from Rust: products in bfloat16 inside, float32 outside,
// off inside an enabled region, and a refused device type.
use tensorc::amp::AutocastGuard;
use tensorc::{ops, Device, ErrorKind, Kind, Result};

#[test]
fn regions_cast_products_and_nest() -> Result<()> {
    let a = ops::ones(&[2, 3], None, None)?;
    let b = ops::ones(&[3, 4], None, None)?;
    assert!(!AutocastGuard::is_enabled(Device::Cpu)?);
    {
        let _amp = AutocastGuard::new(Device::Cpu, None)?;
        assert!(AutocastGuard::is_enabled(Device::Cpu)?);
        assert_eq!(a.mm(&b)?.kind(), Kind::BFloat16);
        {
            let _off = AutocastGuard::with_options(Device::Cpu, None, false, true)?;
            assert_eq!(a.mm(&b)?.kind(), Kind::Float32);
        }
        assert_eq!(a.mm(&b)?.kind(), Kind::BFloat16);
    }
    assert_eq!(a.mm(&b)?.kind(), Kind::Float32);
    assert!(AutocastGuard::new(Device::Cpu, Some(Kind::Float32)).is_err());
    let e = AutocastGuard::new(Device::PrivateUse1(0), None).err().unwrap();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    Ok(())
}
