//! The graphs of the Lanczos-centrality study (MSc thesis "Matrix exponential as a graph
//! centrality measure: parallel Lanczos with CUDA", 2021) with its measured times, and
//! synthetic stand-ins of the same n, edge count and shape built by matexp-sparse's
//! generators (the SuiteSparse files cannot be downloaded on the benchmark hosts).
//! Shared by the `graph` (CPU) and `gpu_graph` suites.

#![allow(dead_code)]

use matexp_sparse::PatternCsr;
use matexp_sparse::generators::{
    RoadNetwork, barabasi_albert, grid_graph_2d, grid_graph_3d, triangulated_grid,
};

/// One row of the thesis's timing table (RTX 2080 Super vs one i5-3570K core, f64).
#[derive(Debug, Clone, Copy)]
pub struct SeedGraph {
    /// Name in the thesis / SuiteSparse.
    pub name: &'static str,
    /// Nodes.
    pub n: usize,
    /// Undirected edges (stored entries / 2).
    pub edges: usize,
    /// How the stand-in is built.
    pub shape: Shape,
    /// Krylov dimension of the thesis's run.
    pub k: usize,
    /// Serial Lanczos time of the thesis (s).
    pub seed_serial_s: f64,
    /// CUDA Lanczos time of the thesis (s).
    pub seed_cuda_s: f64,
    /// Relative difference CUDA vs serial reported by the thesis (None: norm overflow).
    pub seed_rel_diff: Option<f64>,
}

/// The generator of a stand-in.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// Barabási–Albert with m edges per new node (power-law degrees).
    PowerLaw { m: usize },
    /// A road-like perturbed grid (`RoadNetwork`) with the given extra-edge and shortcut
    /// probabilities: mean degree ≈ 2(1 + extra + shortcut).
    Road { extra: f64, shortcut: f64 },
    /// The 2D 4-neighbour grid (adaptive: a 2D mesh of mean degree 4).
    Grid2d,
    /// The 3D 6-neighbour grid (channel-500 is a 3D mesh of mean degree 17.8; the stand-in
    /// has the shape but a third of the entries).
    Grid3d,
    /// A triangulated grid (Delaunay-like, mean degree 6).
    Triangulated,
}

/// The thesis's table, k = 50 except europe_osm (k = 20, the two-pass case).
pub const SEED_GRAPHS: [SeedGraph; 9] = [
    SeedGraph {
        name: "barabasi",
        n: 1_000_000,
        edges: 9_999_944,
        shape: Shape::PowerLaw { m: 10 },
        k: 50,
        seed_serial_s: 5.96,
        seed_cuda_s: 0.417,
        seed_rel_diff: Some(9.0e-13),
    },
    SeedGraph {
        name: "adaptive",
        n: 6_815_744,
        edges: 13_624_320,
        shape: Shape::Grid2d,
        k: 50,
        seed_serial_s: 10.2,
        seed_cuda_s: 1.27,
        seed_rel_diff: Some(3.0e-16),
    },
    SeedGraph {
        name: "california",
        n: 9_664,
        edges: 16_150,
        shape: Shape::PowerLaw { m: 2 },
        k: 50,
        seed_serial_s: 0.0094,
        seed_cuda_s: 0.0036,
        seed_rel_diff: Some(2.4e-14),
    },
    SeedGraph {
        name: "channel-500",
        n: 4_802_000,
        edges: 42_681_372,
        shape: Shape::Grid3d,
        k: 50,
        seed_serial_s: 7.61,
        seed_cuda_s: 0.481,
        seed_rel_diff: Some(7.0e-15),
    },
    SeedGraph {
        name: "com-LiveJournal",
        n: 3_997_962,
        edges: 34_681_189,
        shape: Shape::PowerLaw { m: 9 },
        k: 50,
        seed_serial_s: 18.0,
        seed_cuda_s: 1.32,
        seed_rel_diff: None,
    },
    SeedGraph {
        name: "coPapersDBLP",
        n: 540_486,
        edges: 15_245_729,
        shape: Shape::PowerLaw { m: 28 },
        k: 50,
        seed_serial_s: 2.88,
        seed_cuda_s: 0.120,
        seed_rel_diff: None,
    },
    SeedGraph {
        name: "hugetrace-00020",
        n: 16_002_413,
        edges: 23_998_813,
        shape: Shape::Road {
            extra: 0.48,
            shortcut: 0.02,
        },
        k: 50,
        seed_serial_s: 28.6,
        seed_cuda_s: 3.21,
        seed_rel_diff: Some(3.5e-15),
    },
    SeedGraph {
        name: "road_central",
        n: 14_081_816,
        edges: 16_933_413,
        shape: Shape::Road {
            extra: 0.18,
            shortcut: 0.0225,
        },
        k: 50,
        seed_serial_s: 25.5,
        seed_cuda_s: 2.74,
        seed_rel_diff: Some(4.0e-15),
    },
    SeedGraph {
        name: "europe_osm",
        n: 50_912_018,
        edges: 54_054_660,
        shape: Shape::Road {
            extra: 0.05,
            shortcut: 0.0117,
        },
        k: 20,
        seed_serial_s: 29.4,
        seed_cuda_s: 4.14,
        seed_rel_diff: Some(5.6e-15),
    },
];

/// delaunay_n24 (not in the timing table; mesh-like input of the reader and SpMV).
pub const DELAUNAY_N24: SeedGraph = SeedGraph {
    name: "delaunay_n24",
    n: 16_777_216,
    edges: 50_331_601,
    shape: Shape::Triangulated,
    k: 50,
    seed_serial_s: f64::NAN,
    seed_cuda_s: f64::NAN,
    seed_rel_diff: None,
};

impl SeedGraph {
    /// The stand-in with about `n·scale` nodes (scale = 1: the thesis's size), seeded.
    pub fn generate(&self, scale: f64, seed: u64) -> matexp_core::Result<PatternCsr<u32>> {
        let n = ((self.n as f64 * scale).round() as usize).max(64);
        match self.shape {
            Shape::PowerLaw { m } => barabasi_albert(n, m, seed),
            Shape::Road { extra, shortcut } => {
                let mut r = RoadNetwork::with_nodes(n, seed);
                r.extra_edge_prob = extra;
                r.shortcut_prob = shortcut;
                r.build()
            }
            Shape::Grid2d => {
                let s = (n as f64).sqrt().round() as usize;
                grid_graph_2d(s, s)
            }
            Shape::Grid3d => {
                let s = (n as f64).cbrt().round() as usize;
                grid_graph_3d(s, s, s)
            }
            Shape::Triangulated => {
                let s = (n as f64).sqrt().round() as usize;
                triangulated_grid(s, s, seed)
            }
        }
    }

    /// A file-name-safe case label.
    pub fn label(&self, scale: f64) -> String {
        if scale == 1.0 {
            self.name.replace('-', "_")
        } else {
            format!("{}_x{scale}", self.name.replace('-', "_"))
        }
    }
}
