/* One step of a whole-body controller for Solo12 standing on its feet, in C, on one folder of
 * rbdgen's generated code.
 *
 * The robot (floating base, G = 18 generalized coordinates, nu = [omega_W, pdot_W, qd]) stands on
 * its four point feet, or on three while the fourth swings. The step finds the generalized
 * acceleration nudot, the stance feet's contact forces f (world axes) and the joint torques tau
 * with
 *
 *     M nudot + h = S^T tau + Jc^T f              (the equations of motion, h = C nu + g)
 *     Jc nudot + Jcdot nu = 0                     (the stance feet do not accelerate)
 *     nudot_base = a_base                         (the base task: a PD towards a level pose)
 *     Js nudot + Jsdot nu = a_swing               (the swing foot's task: a PD 5 cm up)
 *
 * in two stages (floating-base inverse dynamics):
 *   1. the motion: the base rows, the four feet's rows (contact or task) make one square system
 *      A nudot = b (18 x 18, LU with partial pivoting);
 *   2. the forces: only the base rows of the equations of motion involve f alone,
 *      Jc_b^T f = (M nudot + h)_b (6 equations, 3 unknowns per stance foot); f is their solution of
 *      least weighted norm f^T W f, W = diag(WT, WT, 1) per foot, which favours normal forces
 *      (f = W^-1 A^T (A W^-1 A^T)^-1 r, A = Jc_b^T, Cholesky), and the joint rows give tau.
 * Friction cones and torque limits are not enforced (a QP would; this step is their equality-only
 * core): the program prints the largest tangential-to-normal force ratio of the stance feet.
 *
 * The state: a standing pose with the knees at KNEE, a tilted base moving with the twist
 * BASE_TWIST, and the joint velocities that keep the stance feet still and move the swing foot at
 * SWING_VELOCITY: the same matrix A maps nu to [base twist; feet velocities], so nu = A^-1 [...].
 *
 * Every quantity comes from the generated functions (solo_passive_terms: M, g, C nu;
 * solo_jacobian_<foot>: the feet's Jacobians; solo_forward_kinematics_<foot>: their positions;
 * solo_forward_acceleration_kinematics_<foot> at nudot = 0: Jdot nu); the example only adds small
 * dense linear algebra on fixed-size arrays. Generate the folder and build (README.md):
 *     rbdgen generate solo12.urdf --floating -o solo --no-compile \
 *         --frames FL_FOOT FR_FOOT HL_FOOT HR_FOOT \
 *         --ops passive_terms jacobian forward_kinematics forward_acceleration_kinematics
 *     cc -std=c99 -O2 -Isolo main.c solo/solo_*.c -lm -o wbc   (every .c of the folder)
 *
 * Usage: wbc [SWING [DX DY DZ [KNEE]]]: SWING is none (default) or the swinging foot, FL, FR, HL
 * or HR; DX DY DZ the base's target offset from where it is, in m (default 0 0 0.02); KNEE the
 * front knees' angle in rad (default -1.6; the hips at -KNEE / 2, the hind legs mirrored).
 * Prints "base" and the 19 values of the base state (its acceleration zero), "q" and "qd" the
 * joints', "stance" 1 or 0 per foot, "a_base" the base task's acceleration [omegadot, pddot],
 * "a_swing" the swing foot's (with a swing foot), "nudot" the generalized acceleration, "f" the
 * four feet's forces (zero for the swing foot), "tau" the joint torques and "friction" the largest
 * |f_tangential| / f_normal. Exit status: 0; 1 when a generated function or a solve reports an
 * error (its name and status on stderr); 2 on bad arguments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solo.h"

#define G RBDGEN_solo_G          /* 18 generalized coordinates */
#define NJ RBDGEN_solo_J         /* 12 joints */
#define BASE RBDGEN_solo_BASE_SIZE /* 19 values of the base state */
#define FEET 4
#define OK RBDGEN_solo_OK
#define SINGULAR RBDGEN_solo_SINGULAR

typedef int (*kinematics_fn)(const double *base, const double *q, double *out);
typedef int (*acceleration_fn)(const double *base, const double *q, const double *qd, const double *qdd, double *out);

static const char *const FOOT[FEET] = {"FL", "FR", "HL", "HR"};
static const kinematics_fn JACOBIAN[FEET] = {solo_jacobian_FL_FOOT, solo_jacobian_FR_FOOT, solo_jacobian_HL_FOOT,
                                             solo_jacobian_HR_FOOT};
static const kinematics_fn POSITION[FEET] = {solo_forward_kinematics_FL_FOOT, solo_forward_kinematics_FR_FOOT,
                                             solo_forward_kinematics_HL_FOOT, solo_forward_kinematics_HR_FOOT};
static const acceleration_fn ACCELERATION[FEET] = {
    solo_forward_acceleration_kinematics_FL_FOOT, solo_forward_acceleration_kinematics_FR_FOOT,
    solo_forward_acceleration_kinematics_HL_FOOT, solo_forward_acceleration_kinematics_HR_FOOT};

/* The state's base: position (m), orientation xyzw (roll 0.05, pitch -0.03, yaw 0.02 rad), twist. */
static const double BASE_POSITION[3] = {0.01, -0.02, 0.235};
static const double BASE_QUATERNION[4] = {0.025143284, -0.014744060, 0.010370506, 0.99952133};
static const double BASE_TWIST[6] = {0.1, -0.2, 0.05, 0.05, 0.02, -0.03}; /* [omega_W, pdot_W] */
static const double SWING_VELOCITY[3] = {0.0, 0.0, 0.2};                   /* m/s, world axes */
static const double LIFT = 0.05;                                           /* m, the swing foot's target */
/* PD gains of the tasks (1/s^2, 1/s) and the tangential weight of the force distribution */
static const double KP_ROTATION = 100.0, KD_ROTATION = 20.0, KP_POSITION = 100.0, KD_POSITION = 20.0;
static const double KP_SWING = 400.0, KD_SWING = 40.0, WT = 10.0;

/* Report a failed call (of a foot's generated function where foot >= 0) and return its status. */
static int fail(const char *what, int foot, int status)
{
    if (foot >= 0)
        fprintf(stderr, "%s_%s_FOOT failed with status %d\n", what, FOOT[foot], status);
    else
        fprintf(stderr, "%s failed with status %d\n", what, status);
    return status;
}

static void print_vector(const char *name, const double *x, int n)
{
    int i;
    printf("%s", name);
    for (i = 0; i < n; ++i) printf(" %.17g", x[i]);
    printf("\n");
}

/* LU factorisation with partial pivoting of the n x n column-major A (n <= G), in place. Returns
 * SINGULAR where a pivot is below 1e-12 of the largest entry (a foot's Jacobian lost rank). */
static int lu_factor(int n, double *A, int *pivot)
{
    double largest = 0.0;
    int i, j, k;
    for (i = 0; i < n * n; ++i)
        if (fabs(A[i]) > largest) largest = fabs(A[i]);
    for (k = 0; k < n; ++k) {
        int p = k;
        for (i = k + 1; i < n; ++i)
            if (fabs(A[k * n + i]) > fabs(A[k * n + p])) p = i;
        if (!(fabs(A[k * n + p]) > 1e-12 * largest)) return SINGULAR;
        pivot[k] = p;
        for (j = 0; j < n; ++j) {
            double t = A[j * n + k];
            A[j * n + k] = A[j * n + p];
            A[j * n + p] = t;
        }
        for (i = k + 1; i < n; ++i) {
            A[k * n + i] /= A[k * n + k];
            for (j = k + 1; j < n; ++j) A[j * n + i] -= A[k * n + i] * A[j * n + k];
        }
    }
    return OK;
}

/* x = A^-1 b from lu_factor's factors, in place. */
static void lu_solve(int n, const double *LU, const int *pivot, double *x)
{
    int i, k;
    for (k = 0; k < n; ++k) {
        double t = x[k];
        x[k] = x[pivot[k]];
        x[pivot[k]] = t;
    }
    for (k = 0; k < n; ++k)
        for (i = k + 1; i < n; ++i) x[i] -= LU[k * n + i] * x[k];
    for (k = n - 1; k >= 0; --k) {
        x[k] /= LU[k * n + k];
        for (i = 0; i < k; ++i) x[i] -= LU[k * n + i] * x[k];
    }
}

/* x = K^-1 b of the 6 x 6 symmetric positive definite K (column-major) by Cholesky, in place. */
static int cholesky_solve6(double *K, double *x)
{
    int i, j, k;
    for (j = 0; j < 6; ++j) {
        for (k = 0; k < j; ++k)
            for (i = j; i < 6; ++i) K[j * 6 + i] -= K[k * 6 + i] * K[k * 6 + j];
        if (!(K[j * 6 + j] > 1e-12)) return SINGULAR; /* fewer than two stance feet, or on one line */
        K[j * 6 + j] = sqrt(K[j * 6 + j]);
        for (i = j + 1; i < 6; ++i) K[j * 6 + i] /= K[j * 6 + j];
    }
    for (j = 0; j < 6; ++j) { /* L y = x */
        x[j] /= K[j * 6 + j];
        for (i = j + 1; i < 6; ++i) x[i] -= K[j * 6 + i] * x[j];
    }
    for (j = 5; j >= 0; --j) { /* L^T x = y */
        for (i = j + 1; i < 6; ++i) x[j] -= K[j * 6 + i] * x[i];
        x[j] /= K[j * 6 + j];
    }
    return OK;
}

/* The base's rotation vector (world axes) of its unit quaternion xyzw: 2 atan2(|v|, w) v / |v|. */
static void rotation_vector(const double *quat, double *theta)
{
    double s = sqrt(quat[0] * quat[0] + quat[1] * quat[1] + quat[2] * quat[2]);
    double sign = quat[3] < 0.0 ? -1.0 : 1.0; /* the shorter way round */
    double scale = s > 1e-12 ? 2.0 * atan2(s, sign * quat[3]) / s : 2.0;
    int i;
    for (i = 0; i < 3; ++i) theta[i] = sign * scale * quat[i];
}

/* One control step: prints the state, the tasks, nudot, f, tau as the usage says. */
static int step(int swing, const double *offset, double knee)
{
    double base[BASE] = {0}, q[NJ], qd[NJ], zero[NJ] = {0};
    double M[G * G], g[G], c[G], jac[FEET][6 * G], pose[7], acc[6];
    double A[G * G], LU[G * G], nu[G], nudot[G], r[G], jdot_nu[FEET][3];
    double a_base[6], a_swing[3] = {0}, theta[3], f[3 * FEET] = {0}, tau[NJ], W[3], y[6], K[36] = {0};
    double friction = 0.0;
    int pivot[G], status, i, j, k, row;

    for (i = 0; i < 3; ++i) base[i] = BASE_POSITION[i];
    for (i = 0; i < 4; ++i) base[3 + i] = BASE_QUATERNION[i] / hypot(hypot(BASE_QUATERNION[0], BASE_QUATERNION[1]),
                                                                  hypot(BASE_QUATERNION[2], BASE_QUATERNION[3]));
    for (k = 0; k < FEET; ++k) { /* HAA 0.05 alternating, HFE -KNEE / 2, KFE KNEE; hind legs mirrored */
        double side = k < 2 ? 1.0 : -1.0;
        q[k] = k % 2 == 0 ? 0.05 : -0.05;
        q[FEET + k] = -side * knee / 2.0;
        q[2 * FEET + k] = side * knee;
    }

    /* A: nu -> [base twist; the feet's velocities] (the base's own rows are the identity) */
    memset(A, 0, sizeof A);
    for (i = 0; i < 6; ++i) A[i * G + i] = 1.0;
    for (k = 0; k < FEET; ++k) {
        if ((status = JACOBIAN[k](base, q, jac[k])) != OK) return fail("solo_jacobian", k, status);
        for (row = 0; row < 3; ++row)
            for (j = 0; j < G; ++j) A[j * G + 6 + 3 * k + row] = jac[k][j * 6 + 3 + row]; /* the pdot rows */
    }
    memcpy(LU, A, sizeof A);
    if ((status = lu_factor(G, LU, pivot)) != OK) return fail("lu_factor", -1, status);

    /* the state: the stance feet still, the swing foot moving at SWING_VELOCITY */
    memset(nu, 0, sizeof nu);
    for (i = 0; i < 6; ++i) nu[i] = BASE_TWIST[i];
    if (swing >= 0)
        for (i = 0; i < 3; ++i) nu[6 + 3 * swing + i] = SWING_VELOCITY[i];
    lu_solve(G, LU, pivot, nu);
    for (i = 0; i < 6; ++i) base[7 + i] = nu[i];
    for (i = 0; i < NJ; ++i) qd[i] = nu[6 + i];

    /* the dynamics and the feet's Jdot nu (classical accelerations at nudot = 0: base[13..18] = 0) */
    if ((status = solo_passive_terms(base, q, qd, M, g, c)) != OK) return fail("solo_passive_terms", -1, status);
    for (k = 0; k < FEET; ++k) {
        if ((status = ACCELERATION[k](base, q, qd, zero, acc)) != OK)
            return fail("solo_forward_acceleration_kinematics", k, status);
        for (i = 0; i < 3; ++i) jdot_nu[k][i] = acc[3 + i];
    }

    /* the tasks: the base to a level pose at its position + offset, the swing foot LIFT up */
    rotation_vector(base + 3, theta);
    for (i = 0; i < 3; ++i) {
        a_base[i] = -KP_ROTATION * theta[i] - KD_ROTATION * nu[i]; /* towards R = I */
        a_base[3 + i] = KP_POSITION * offset[i] - KD_POSITION * nu[3 + i];
    }
    if (swing >= 0) {
        if ((status = POSITION[swing](base, q, pose)) != OK) return fail("solo_forward_kinematics", swing, status);
        for (i = 0; i < 3; ++i) {
            double velocity = 0.0, target = pose[i] + (i == 2 ? LIFT : 0.0);
            for (j = 0; j < G; ++j) velocity += jac[swing][j * 6 + 3 + i] * nu[j];
            a_swing[i] = KP_SWING * (target - pose[i]) - KD_SWING * velocity;
        }
    }

    /* 1. the motion: A nudot = [a_base; per foot 0 (stance) or a_swing, minus Jdot nu] */
    for (i = 0; i < 6; ++i) nudot[i] = a_base[i];
    for (k = 0; k < FEET; ++k)
        for (i = 0; i < 3; ++i) nudot[6 + 3 * k + i] = (k == swing ? a_swing[i] : 0.0) - jdot_nu[k][i];
    lu_solve(G, LU, pivot, nudot);

    /* 2. the forces: r = M nudot + h; Jc_b^T f = r_b with the least f^T W f; tau = r_j - (Jc^T f)_j */
    for (i = 0; i < G; ++i) {
        r[i] = g[i] + c[i];
        for (j = 0; j < G; ++j) r[i] += M[j * G + i] * nudot[j];
    }
    W[0] = W[1] = 1.0 / WT;
    W[2] = 1.0; /* W^-1 per foot */
    for (k = 0; k < FEET; ++k) /* K = A W^-1 A^T, A[b][3k+i] = Jc_k[i][b] */
        if (k != swing)
            for (i = 0; i < 3; ++i)
                for (j = 0; j < 6; ++j)
                    for (row = 0; row < 6; ++row)
                        K[j * 6 + row] += jac[k][row * 6 + 3 + i] * W[i] * jac[k][j * 6 + 3 + i];
    for (i = 0; i < 6; ++i) y[i] = r[i];
    if ((status = cholesky_solve6(K, y)) != OK) return fail("cholesky_solve6", -1, status);
    for (k = 0; k < FEET; ++k)
        if (k != swing)
            for (i = 0; i < 3; ++i)
                for (j = 0; j < 6; ++j) f[3 * k + i] += W[i] * jac[k][j * 6 + 3 + i] * y[j];
    for (i = 0; i < NJ; ++i) {
        tau[i] = r[6 + i];
        for (k = 0; k < FEET; ++k)
            for (j = 0; j < 3; ++j) tau[i] -= jac[k][(6 + i) * 6 + 3 + j] * f[3 * k + j];
    }
    for (k = 0; k < FEET; ++k)
        if (k != swing) {
            double ratio = f[3 * k + 2] > 0.0 ? hypot(f[3 * k], f[3 * k + 1]) / f[3 * k + 2] : INFINITY;
            if (ratio > friction) friction = ratio;
        }

    print_vector("base", base, BASE);
    print_vector("q", q, NJ);
    print_vector("qd", qd, NJ);
    printf("stance");
    for (k = 0; k < FEET; ++k) printf(" %d", k != swing);
    printf("\n");
    print_vector("a_base", a_base, 6);
    if (swing >= 0) print_vector("a_swing", a_swing, 3);
    print_vector("nudot", nudot, G);
    print_vector("f", f, 3 * FEET);
    print_vector("tau", tau, NJ);
    printf("friction %.6g\n", friction);
    return OK;
}

int main(int argc, char **argv)
{
    double offset[3] = {0.0, 0.0, 0.02}, knee = -1.6;
    int swing = -1, i;

    if (argc != 1 && argc != 2 && argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s [none|FL|FR|HL|HR [DX DY DZ [KNEE]]]\n", argv[0]);
        return 2;
    }
    if (argc > 1 && strcmp(argv[1], "none") != 0) {
        for (i = 0; i < FEET && strcmp(argv[1], FOOT[i]) != 0; ++i) {}
        if (i == FEET) {
            fprintf(stderr, "the swinging foot must be none, FL, FR, HL or HR, not %s\n", argv[1]);
            return 2;
        }
        swing = i;
    }
    for (i = 2; i < argc; ++i) {
        char *end;
        double value = strtod(argv[i], &end);
        if (*end != '\0' || end == argv[i] || !isfinite(value)) {
            fprintf(stderr, "%s is not a finite number\n", argv[i]);
            return 2;
        }
        if (i < 5)
            offset[i - 2] = value;
        else
            knee = value;
    }
    return step(swing, offset, knee) == OK ? 0 : 1;
}
