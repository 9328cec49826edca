#pragma once
// Eigen's dense decompositions at dynamic size, compiled once, in decompositions.cpp, rather than
// in every file that uses them. Include this header instead of <Eigen/Eigenvalues>, <Eigen/LU>,
// <Eigen/QR> or <Eigen/SVD>: its `extern template` declarations keep the compiler from
// instantiating and optimizing the classes below again in each file. The eigenvalue solvers,
// the SVDs and the LUs were half of the compile time of the files that use them (the H-infinity
// norm's file: 36 s of CPU, 21 s with these declarations; the instantiations' own file takes the
// difference once), in each of the three builds CI makes. Fixed-size decompositions (3x3, 6x6)
// are left to the compiler, which inlines them.
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>

// The list (once here, expanded twice: declared extern here, instantiated in decompositions.cpp).
#define GRAPPLE_DENSE_DECOMPOSITIONS(X)                         \
  X(Eigen::JacobiSVD<Eigen::MatrixXd>)                          \
  X(Eigen::JacobiSVD<Eigen::MatrixXcd>)                         \
  X(Eigen::EigenSolver<Eigen::MatrixXd>)                        \
  X(Eigen::RealSchur<Eigen::MatrixXd>)                          \
  X(Eigen::HessenbergDecomposition<Eigen::MatrixXd>)            \
  X(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>)             \
  X(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXcd>)            \
  X(Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd>)  \
  X(Eigen::Tridiagonalization<Eigen::MatrixXd>)                 \
  X(Eigen::Tridiagonalization<Eigen::MatrixXcd>)                \
  X(Eigen::PartialPivLU<Eigen::MatrixXd>)                       \
  X(Eigen::PartialPivLU<Eigen::MatrixXcd>)                      \
  X(Eigen::HouseholderQR<Eigen::MatrixXd>)                      \
  X(Eigen::ColPivHouseholderQR<Eigen::MatrixXd>)                \
  X(Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>)

#define GRAPPLE_EXTERN_DECOMPOSITION(...) extern template class __VA_ARGS__;
GRAPPLE_DENSE_DECOMPOSITIONS(GRAPPLE_EXTERN_DECOMPOSITION)
#undef GRAPPLE_EXTERN_DECOMPOSITION
