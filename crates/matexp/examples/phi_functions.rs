//! φ₀(tA)v, …, φ₃(tA)v together (Julia's `phiv`) for a nonsymmetric convection–diffusion
//! operator, and one exponential Euler step u₁ = e^{hA}u₀ + h·φ₁(hA)g built from them.

use matexp::{CpuBackend, CsrMatrix, Options, phi_combination, phimv};

fn convection_diffusion(n: usize, peclet: f64) -> matexp::Result<CsrMatrix<f64>> {
    let h2 = ((n + 1) * (n + 1)) as f64;
    let c = peclet * (n + 1) as f64 / 2.0;
    let (mut rp, mut ci, mut vals) = (vec![0u32], Vec::new(), Vec::new());
    for i in 0..n {
        if i > 0 {
            ci.push(i as u32 - 1);
            vals.push(h2 + c);
        }
        ci.push(i as u32);
        vals.push(-2.0 * h2);
        if i + 1 < n {
            ci.push(i as u32 + 1);
            vals.push(h2 - c);
        }
        rp.push(ci.len() as u32);
    }
    CsrMatrix::try_new(n, n, rp, ci, vals)
}

fn main() -> matexp::Result<()> {
    let cpu = CpuBackend::new();
    let a = convection_diffusion(100, 50.0)?;
    let u0: Vec<f64> = (0..100).map(|i| (i as f64 * 0.1).sin()).collect();
    let g = vec![1.0; 100];
    let h = 1e-3;
    let (phis, report) = phimv(&cpu, &a, h, &u0, 3, &Options::default())?;
    for (k, p) in phis.iter().enumerate() {
        let norm = p.iter().map(|x| x * x).sum::<f64>().sqrt();
        println!("‖φ_{k}(hA)u₀‖₂ = {norm:.6e}");
    }
    println!("{report}");
    let (u1, report) = phi_combination(&cpu, &a, h, &[&u0, &g], &Options::default())?;
    println!("exponential Euler step: u₁[50] = {:.6e}; {report}", u1[50]);
    Ok(())
}
