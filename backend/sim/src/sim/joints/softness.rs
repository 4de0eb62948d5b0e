//! A scene's `erp` / `cfm` (ODE's error reduction parameter and constraint force mixing)
//! mapped to rapier's joint softness, a mass-normalised spring.
//!
//! ODE defines both numbers through an equivalent spring and damper (stiffness `k`,
//! damping `c`) and its step `h`:
//!
//! ```text
//! ERP = h k / (h k + c)        CFM = 1 / (h k + c)
//! ```
//!
//! Rapier softens a joint's locked rows with a spring given by its natural angular
//! frequency `ω` and damping ratio `ζ` per unit of the row's effective mass `m`
//! (`k = m ω²`, `c = 2 m ζ ω`). Substituting gives
//!
//! ```text
//! ERP = h ω / (h ω + 2 ζ)      (independent of m)
//! CFM = ERP / (m h ω²)
//! ```
//!
//! so `ω = sqrt(ERP / (m h CFM))` and `ζ = h ω (1 − ERP) / (2 ERP)`. The ERP is
//! reproduced exactly; the CFM needs a mass, which rapier's softness does not have (it
//! is the same spring per kilogram for every joint), so it is read at
//! [`CFM_REFERENCE_MASS`]. Rapier integrates the resulting spring at its own substep,
//! which is finer than `h`: the spring is the physical quantity kept, not the
//! per-step numbers.

use rapier3d::prelude::*;

/// The effective mass (kg, or kg·m² for angular rows) at which a scene's `cfm` has
/// exactly its ODE meaning. Rapier's joint softness is per unit mass, so a joint moving
/// 10 kg is as soft as a 1 kg one would be in ODE with the same `cfm`.
pub(crate) const CFM_REFERENCE_MASS: f32 = 1.0;

/// ODE's default ERP (`dWorldSetERP`), used when a scene sets only `cfm`.
pub(crate) const ODE_DEFAULT_ERP: f32 = 0.2;

/// The stiffest spring we build: rapier's own default for joints (10⁶ Hz), which is
/// rigid at any lab step. A `cfm` of 0 (a hard constraint in ODE) gets it.
const MAX_NATURAL_FREQUENCY_HZ: f32 = 1.0e6;

/// The softness of a joint whose scene set `erp` and/or `cfm`, for ODE's step `h_secs`;
/// `None` when it set neither (rapier's default, rigid joint is kept).
///
/// `erp` is clamped to `0..=1` and `cfm` to `>= 0` (the interpreter already refuses
/// values outside those ranges). With `erp` 0 the joint corrects no drift and `cfm` has
/// no rapier equivalent (ODE would make it a pure damper): the rows stay rigid at the
/// velocity level.
pub(crate) fn softness_of(erp: Option<f32>, cfm: Option<f32>, h_secs: f32) -> Option<SpringCoefficients<Real>> {
    if erp.is_none() && cfm.is_none() {
        return None;
    }
    let erp = erp.unwrap_or(ODE_DEFAULT_ERP).clamp(0.0, 1.0);
    let cfm = cfm.unwrap_or(0.0).max(0.0);
    if erp == 0.0 {
        return Some(SpringCoefficients::new(0.0, 1.0));
    }
    let max_omega = MAX_NATURAL_FREQUENCY_HZ * std::f32::consts::TAU;
    let omega = if cfm > 0.0 { (erp / (CFM_REFERENCE_MASS * h_secs * cfm)).sqrt().min(max_omega) } else { max_omega };
    let zeta = h_secs * omega * (1.0 - erp) / (2.0 * erp);
    Some(SpringCoefficients::new(omega / std::f32::consts::TAU, zeta))
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: f32 = 1.0 / 240.0;

    fn close(a: f32, b: f32, relative: f32) -> bool {
        (a - b).abs() <= relative * a.abs().max(b.abs())
    }

    #[test]
    fn erp_and_cfm_are_reproduced_at_odes_step() {
        // Rapier's own erp/cfm formulas, evaluated at h, give back ODE's numbers
        // (cfm as rapier's mass-normalised coefficient m·CFM/h).
        for (erp, cfm) in [(0.2, 1e-5), (0.8, 1e-3), (0.5, 0.1), (0.95, 1e-6)] {
            let spring = softness_of(Some(erp), Some(cfm), H).unwrap();
            assert!(close(spring.erp(H), erp, 1e-3), "erp {erp}: got {}", spring.erp(H));
            let cfm_coeff = CFM_REFERENCE_MASS * cfm / H;
            assert!(close(spring.cfm_coeff(H), cfm_coeff, 1e-2), "cfm {cfm}: got {}", spring.cfm_coeff(H));
        }
    }

    #[test]
    fn a_hard_constraint_stays_rigid_and_keeps_its_erp() {
        let spring = softness_of(Some(0.8), Some(0.0), H).unwrap();
        assert!(close(spring.erp(H), 0.8, 1e-3));
        assert!(spring.cfm_coeff(H) < 1e-6, "{}", spring.cfm_coeff(H));
        assert_eq!(softness_of(None, None, H), None);
    }

    #[test]
    fn cfm_alone_uses_odes_default_erp_and_erp_zero_corrects_nothing() {
        let spring = softness_of(None, Some(1e-5), H).unwrap();
        assert!(close(spring.erp(H), ODE_DEFAULT_ERP, 1e-3));
        let none = softness_of(Some(0.0), Some(0.5), H).unwrap();
        assert_eq!(none.erp(H), 0.0);
        assert_eq!(none.cfm_coeff(H), 0.0);
    }

    #[test]
    fn erp_one_is_an_undamped_spring() {
        let spring = softness_of(Some(1.0), Some(1e-4), H).unwrap();
        assert_eq!(spring.damping_ratio, 0.0);
        assert!(close(spring.erp(H), 1.0, 1e-6));
    }
}
