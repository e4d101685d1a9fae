/* Calls the matexp C ABI and checks results against closed forms; exits 0 on success. */
#include "matexp.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond, ...)                                                                      \
  do {                                                                                        \
    if (!(cond)) {                                                                            \
      fprintf(stderr, "FAIL line %d: ", __LINE__);                                          \
      fprintf(stderr, __VA_ARGS__);                                                           \
      fprintf(stderr, " (last error: %s)\n", matexp_last_error());                          \
      failures++;                                                                             \
    }                                                                                         \
  } while (0)

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

int main(void) {
  /* A = [[0, 1], [-1, 0]]: e^{tA} = [[cos t, sin t], [-sin t, cos t]]. */
  const int64_t rp[] = {0, 1, 2};
  const int64_t ci[] = {1, 0};
  const double va[] = {1.0, -1.0};
  MatexpMatrix *a = NULL;
  CHECK(matexp_csr_new(2, 2, rp, ci, va, &a) == MATEXP_STATUS_OK, "csr_new");
  CHECK(matexp_csr_nrows(a) == 2, "nrows");
  MatexpOptions *o = matexp_options_new();
  CHECK(matexp_options_set_tolerance(o, 1e-12, 0.0) == MATEXP_STATUS_OK, "set_tolerance");
  const double t = 0.7, v[] = {1.0, 2.0};
  double w[2] = {0, 0};
  MatexpReport rep;
  memset(&rep, 0, sizeof rep);
  CHECK(matexp_expmv(a, t, v, w, 2, o, &rep) == MATEXP_STATUS_OK, "expmv");
  double w0 = cos(t) * 1.0 + sin(t) * 2.0, w1 = -sin(t) * 1.0 + cos(t) * 2.0;
  CHECK(rel(w[0], w0) < 1e-10 && rel(w[1], w1) < 1e-10, "expmv: got (%.17g, %.17g), want (%.17g, %.17g)",
        w[0], w[1], w0, w1);
  CHECK(rep.products > 0 && rep.converged == 1, "report: products %llu converged %d",
        (unsigned long long)rep.products, rep.converged);
  CHECK(rep.rel_error_estimate <= 1e-12, "converged with rel_error_estimate %g", rep.rel_error_estimate);

  /* Every method gives the same rotation. */
  for (int m = MATEXP_METHOD_LEJA; m <= MATEXP_METHOD_TAYLOR; m++) {
    if (m == MATEXP_METHOD_LANCZOS) continue; /* A is not symmetric */
    CHECK(matexp_options_set_method(o, m) == MATEXP_STATUS_OK, "set_method %d", m);
    CHECK(matexp_expmv(a, t, v, w, 2, o, NULL) == MATEXP_STATUS_OK, "expmv method %d", m);
    CHECK(rel(w[0], w0) < 1e-8 && rel(w[1], w1) < 1e-8, "method %d: (%.17g, %.17g)", m, w[0], w[1]);
  }
  matexp_options_set_method(o, MATEXP_METHOD_AUTO);

  /* phi_1 of D = diag(-1, -2) at t = 1: (e^{d} - 1)/d. */
  const int64_t drp[] = {0, 1, 2}, dci[] = {0, 1};
  const double dva[] = {-1.0, -2.0};
  MatexpMatrix *d = NULL;
  CHECK(matexp_csr_new(2, 2, drp, dci, dva, &d) == MATEXP_STATUS_OK, "csr_new diag");
  const double ones[] = {1.0, 1.0};
  double phi[6];
  CHECK(matexp_phimv(d, 1.0, ones, 2, phi, 2, o, NULL) == MATEXP_STATUS_OK, "phimv");
  for (int i = 0; i < 2; i++) {
    double z = dva[i];
    CHECK(rel(phi[i], exp(z)) < 1e-10, "phi0[%d] = %.17g", i, phi[i]);
    CHECK(rel(phi[2 + i], (exp(z) - 1.0) / z) < 1e-10, "phi1[%d] = %.17g", i, phi[2 + i]);
    CHECK(rel(phi[4 + i], (exp(z) - 1.0 - z) / (z * z)) < 1e-10, "phi2[%d] = %.17g", i, phi[4 + i]);
  }

  /* Schrödinger-type complex time: e^{-i t D} (1, 1) = (e^{i t}, e^{2 i t}) for D = diag(-1, -2). */
  const double cv[] = {1.0, 0.0, 1.0, 0.0};
  double cw[4];
  CHECK(matexp_expmv_complex(d, 0.0, -t, cv, cw, 2, o, NULL) == MATEXP_STATUS_OK, "expmv_complex");
  CHECK(fabs(cw[0] - cos(t)) < 1e-10 && fabs(cw[1] - sin(t)) < 1e-10, "complex[0] = %g%+gi", cw[0], cw[1]);
  CHECK(fabs(cw[2] - cos(2 * t)) < 1e-10 && fabs(cw[3] - sin(2 * t)) < 1e-10, "complex[1] = %g%+gi", cw[2], cw[3]);

  /* Errors: status codes and messages, no crash. */
  CHECK(matexp_expmv(a, t, v, w, 3, o, NULL) == MATEXP_STATUS_INPUT, "wrong length");
  CHECK(strstr(matexp_last_error(), "length 3") != NULL, "message names the length: %s", matexp_last_error());
  CHECK(matexp_expmv(NULL, t, v, w, 2, o, NULL) == MATEXP_STATUS_NULL_POINTER, "null matrix");
  CHECK(matexp_expmv(a, t, NULL, w, 2, o, NULL) == MATEXP_STATUS_NULL_POINTER, "null v");
  CHECK(matexp_options_set_device(o, "tpu") == MATEXP_STATUS_INVALID_ARGUMENT, "unknown device");
  const double nanv[] = {NAN, 1.0};
  CHECK(matexp_expmv(a, t, nanv, w, 2, o, NULL) == MATEXP_STATUS_INPUT, "NaN in v");
  const int64_t bad_rp[] = {0, 1, 5};
  MatexpMatrix *bad = NULL;
  CHECK(matexp_csr_new(2, 2, bad_rp, ci, va, &bad) == MATEXP_STATUS_INPUT && bad == NULL, "inconsistent CSR");
  /* SciPy's int32 index arrays. */
  const int32_t rp32[] = {0, 1, 2}, ci32[] = {1, 0};
  MatexpMatrix *a32 = NULL;
  CHECK(matexp_csr_new_i32(2, 2, rp32, ci32, va, &a32) == MATEXP_STATUS_OK, "csr_new_i32");
  CHECK(matexp_expmv(a32, t, v, w, 2, o, NULL) == MATEXP_STATUS_OK && rel(w[0], w0) < 1e-10, "i32 expmv");
  matexp_csr_free(a32);
  /* Out-of-range enumerations, negative and NaN tolerances: status 2, nothing changed. */
  CHECK(matexp_options_set_method(o, 5) == MATEXP_STATUS_INVALID_ARGUMENT, "method 5");
  CHECK(matexp_options_set_method(o, -1) == MATEXP_STATUS_INVALID_ARGUMENT, "method -1");
  CHECK(strstr(matexp_last_error(), "-1") != NULL, "message names the value: %s", matexp_last_error());
  CHECK(matexp_options_set_tolerance(o, -1e-8, 0.0) == MATEXP_STATUS_INVALID_ARGUMENT, "negative rtol");
  CHECK(matexp_options_set_tolerance(o, 1e-8, NAN) == MATEXP_STATUS_INVALID_ARGUMENT, "NaN atol");
  CHECK(matexp_csr_read("/nonexistent/matrix.mtx", &bad) == MATEXP_STATUS_INPUT, "missing file");
  CHECK(strstr(matexp_last_error(), "/nonexistent/matrix.mtx") != NULL, "message names the file");

  matexp_csr_free(a);
  matexp_csr_free(d);
  matexp_options_free(o);
  matexp_csr_free(NULL);
  matexp_options_free(NULL);
  if (failures == 0) printf("matexp C ABI: all checks passed (version %s)\n", matexp_version());
  return failures == 0 ? 0 : 1;
}
