/* Operational-space control of the Panda's hand, in C, on one folder of rbdgen's generated code.
 *
 * The hand's tool point (link panda_hand_tcp) is driven to a target position, its
 * orientation held, by a task-space impedance with the arm's dynamics cancelled
 * (operational-space control, Khatib 1987):
 *
 *     twist     v   = J nu                                   (6: [omega, pdot], world axes)
 *     desired   a_d = Kp e - Kd v                            (e: orientation and position error)
 *     task      Lambda = (J M^-1 J^T)^-1
 *     torque    tau = J^T Lambda (a_d - Jdot nu - J M^-1 tau_0) + tau_0 + C(q, qd) qd + g(q)
 *     posture   tau_0 = -Kn (q - q_rest) - Dn qd              (acts in the null space of J only)
 *
 * so the hand's classical acceleration J qdd + Jdot nu equals a_d: a critically damped
 * spring towards the target. Since Lambda J M^-1 = J#^T with the dynamically consistent
 * inverse J# = M^-1 J^T Lambda, the torque is computed as
 *
 *     tau = J^T (Lambda (a_d - Jdot nu) - J#^T tau_0) + tau_0 + C(q, qd) qd + g(q).
 *
 * g and C qd come from panda_passive_terms (one pass, M not wanted), J from
 * panda_jacobian_panda_hand_tcp, Jdot nu from panda_forward_acceleration_kinematics_
 * panda_hand_tcp at zero joint acceleration, the pose from panda_forward_kinematics_
 * panda_hand_tcp, Lambda from panda_operational_space_inertia_panda_hand_tcp and J# from
 * panda_dynamically_consistent_inverse_panda_hand_tcp. The arm is simulated with
 * panda_forward_dynamics (ABA) and semi-implicit Euler: qd += dt qdd, q += dt qd. Every
 * generated function's status is checked.
 *
 * Generate the folder and build (README.md):
 *     rbdgen generate panda.urdf -o panda --no-compile --frames panda_hand_tcp --ops passive_terms \
 *         forward_dynamics jacobian forward_acceleration_kinematics forward_kinematics \
 *         operational_space_inertia dynamically_consistent_inverse
 *     cc -std=c99 -O2 -Ipanda main.c panda/panda_*.c -lm -o impedance   (every .c of the folder)
 *
 * Usage: impedance [X Y Z [STEPS]]: the target of the tool point in m (default 0.5 0.3 0.35),
 * STEPS steps of 2 ms (default 500). Prints the distance to the target every 50 steps, then
 * "q" and the final joint positions, "hand" and the final tool point, "distance" and the
 * final distance. Exit status: 0; 1 when a generated function reports an error (its name
 * and status on stderr; status 2 or 3 from the task inertia: the hand's Jacobian lost
 * rank); 2 on bad arguments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "panda.h"

#define N RBDGEN_panda_G /* 7 generalized coordinates */
#define OK RBDGEN_panda_OK

/* Run a generated function; on an error status print its name and the status, and fail. */
#define CHECK(call)                                                                  \
    do {                                                                             \
        int status_ = (call);                                                        \
        if (status_ != OK) {                                                         \
            fprintf(stderr, "%s failed with status %d\n", #call, status_);           \
            return status_;                                                          \
        }                                                                            \
    } while (0)

static const double DT = 0.002;                        /* s */
static const double KP_POSITION = 150.0, KP_ROTATION = 150.0;  /* 1/s^2 */
static const double KN = 10.0, DN = 5.0;               /* posture stiffness and damping */
static const double Q_REST[N] = {0.0, -0.78539816339744831, 0.0, -2.3561944901923448, 0.0, 1.5707963267948966,
                                 0.78539816339744831}; /* the "ready" pose, also the start */

/* a b for quaternions [x, y, z, w]. */
static void quat_mul(const double *a, const double *b, double *out)
{
    out[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    out[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* The error [rotation (world axes), position] from the pose [x, y, z, qx, qy, qz, qw] to the target. */
static void pose_error(const double *pose, const double *target, double *e)
{
    const double inverse[4] = {-pose[3], -pose[4], -pose[5], pose[6]};
    double r[4];
    int i;
    quat_mul(target + 3, inverse, r); /* the rotation from the pose to the target, in world axes */
    for (i = 0; i < 3; ++i) {
        e[i] = 2.0 * (r[3] < 0 ? -r[i] : r[i]); /* about (angle) (axis) for small angles */
        e[3 + i] = target[i] - pose[i];
    }
}

/* The operational-space torque at (q, qd) towards the target pose. */
static int control(const double *q, const double *qd, const double *target, double *tau)
{
    static const double zero[N] = {0};
    double g[N], c[N], Jac[6 * N], bias[6], pose[7], e[6], twist[6] = {0};
    double Lambda[36], Jsharp[N * 6], tau0[N], a[6], f[6];
    int i, k, col;

    CHECK(panda_passive_terms(q, qd, NULL, g, c));                                 /* g(q), C(q, qd) qd */
    CHECK(panda_jacobian_panda_hand_tcp(q, Jac));                                  /* 6 x N, column-major */
    CHECK(panda_forward_acceleration_kinematics_panda_hand_tcp(q, qd, zero, bias)); /* Jdot nu */
    CHECK(panda_forward_kinematics_panda_hand_tcp(q, pose));
    CHECK(panda_operational_space_inertia_panda_hand_tcp(q, Lambda));       /* 6 x 6; status 2/3: J lost rank */
    CHECK(panda_dynamically_consistent_inverse_panda_hand_tcp(q, Jsharp)); /* N x 6, M^-1 J^T Lambda */
    pose_error(pose, target, e);
    for (col = 0; col < N; ++col)
        for (i = 0; i < 6; ++i) twist[i] += Jac[col * 6 + i] * qd[col];

    for (col = 0; col < N; ++col) tau0[col] = -KN * (q[col] - Q_REST[col]) - DN * qd[col];
    for (i = 0; i < 6; ++i) { /* a = a_d - Jdot nu */
        double kp = i < 3 ? KP_ROTATION : KP_POSITION;
        a[i] = kp * e[i] - 2.0 * sqrt(kp) * twist[i] - bias[i];
    }
    for (i = 0; i < 6; ++i) { /* f = Lambda a - J#^T tau_0 (Lambda J M^-1 = J#^T) */
        f[i] = 0.0;
        for (k = 0; k < 6; ++k) f[i] += Lambda[k * 6 + i] * a[k];
        for (col = 0; col < N; ++col) f[i] -= Jsharp[i * N + col] * tau0[col];
    }
    for (col = 0; col < N; ++col) {
        tau[col] = tau0[col] + c[col] + g[col];
        for (i = 0; i < 6; ++i) tau[col] += Jac[col * 6 + i] * f[i];
    }
    return OK;
}

/* Simulate `steps` steps from the rest pose towards the target position, printing as the usage says. */
static int simulate(const double *position, long steps)
{
    double q[N], qd[N] = {0}, qdd[N], tau[N], pose[7], target[7], e[6];
    long step;
    int i;

    for (i = 0; i < N; ++i) q[i] = Q_REST[i];
    CHECK(panda_forward_kinematics_panda_hand_tcp(q, target)); /* keep the start orientation */
    for (i = 0; i < 3; ++i) target[i] = position[i];
    for (step = 0;; ++step) {
        CHECK(panda_forward_kinematics_panda_hand_tcp(q, pose));
        pose_error(pose, target, e);
        if (step % 50 == 0) printf("step %ld distance %.6e\n", step, sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5]));
        if (step == steps) break;
        CHECK(control(q, qd, target, tau));
        CHECK(panda_forward_dynamics(q, qd, tau, NULL, qdd));
        for (i = 0; i < N; ++i) { /* semi-implicit Euler */
            qd[i] += DT * qdd[i];
            q[i] += DT * qd[i];
        }
    }
    printf("q");
    for (i = 0; i < N; ++i) printf(" %.17g", q[i]);
    printf("\nhand %.17g %.17g %.17g\n", pose[0], pose[1], pose[2]);
    printf("distance %.6e\n", sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5]));
    return OK;
}

int main(int argc, char **argv)
{
    double position[3] = {0.5, 0.3, 0.35};
    long steps = 500;
    int i;

    if (argc != 1 && argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s [X Y Z [STEPS]]\n", argv[0]);
        return 2;
    }
    for (i = 1; i < argc && i < 4; ++i) position[i - 1] = strtod(argv[i], NULL);
    if (argc == 5) steps = strtol(argv[4], NULL, 10);
    if (steps < 1) {
        fprintf(stderr, "STEPS must be a positive number of steps\n");
        return 2;
    }
    return simulate(position, steps) == OK ? 0 : 1;
}
