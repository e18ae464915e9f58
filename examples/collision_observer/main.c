/* A generalized-momentum observer on the Panda, in C, on one folder of rbdgen's generated code.
 *
 * The arm follows a joint trajectory under a PD controller with gravity compensation,
 *
 *     tau = Kp (q_d(t) - q) + Kd (qd_d(t) - qd) + g(q),
 *
 * and is simulated with panda_forward_dynamics (ABA, semi-implicit Euler, dt = 1 ms). From
 * CONTACT_START to CONTACT_END a force f (world axes) pushes on the hand's tool point (link
 * panda_hand_tcp): the simulation adds tau_ext = J^T [0, f] to the torques (J from
 * panda_jacobian_panda_hand_tcp, twist [omega, pdot]). The controller and the observer do
 * not know f. The observer (De Luca and Mattone 2003) sees only q, qd and the commanded tau:
 *
 *     p = M(q) qd                                             (panda_momentum)
 *     pdot = tau + tau_ext + C(q, qd)^T qd - g(q)             (Mdot = C + C^T)
 *     r = K (p - integral(tau + C^T qd - g + r) dt - p(0))    (C: panda_coriolis_matrix, g: panda_gravity)
 *
 * so that rdot = K (tau_ext - r): r follows the external joint torque with the time
 * constant 1/K and stays near zero without contact. A contact is detected when |r| exceeds
 * THRESHOLD.
 *
 * Generate the folder and build (README.md):
 *     rbdgen generate panda.urdf -o panda --no-compile --frames panda_hand_tcp \
 *         --ops forward_dynamics gravity momentum coriolis_matrix jacobian
 *     cc -std=c99 -O2 -Ipanda main.c panda/panda_*.c -lm -o observer   (every .c of the folder)
 *
 * Usage: observer [FX FY FZ [K]]: the contact force in N (default 10 -15 -20), the observer
 * gain in 1/s (default 500). Prints "threshold" and |r| above which a contact is reported,
 * "contact" and the window's start and end in s, then "t" and |r| every 20 ms, "detected"
 * and the time the residual first exceeded the threshold, "released" and the time it fell
 * back below it after the contact (no such lines when it never did); at the last step of
 * the contact "q" and the joint positions, "r" and the residual, "tau_ext" and J^T [0, f];
 * at the end "max_r_free" and the largest |r| before the contact. Exit status: 0; 1 when a
 * generated function reports an error (its name and status on stderr); 2 on bad arguments.
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

static const double DT = 0.001;                                  /* s */
static const long STEPS = 1000, CONTACT_START = 400, CONTACT_END = 700; /* steps of DT */
static const double THRESHOLD = 1.0;                             /* N m */
static const double PI = 3.14159265358979323846;
static const double KP[N] = {600.0, 600.0, 600.0, 600.0, 100.0, 100.0, 20.0}; /* N m / rad */
static const double KD[N] = {40.0, 40.0, 40.0, 20.0, 5.0, 5.0, 2.0};           /* N m s / rad */
static const double Q_REST[N] = {0.0, -0.78539816339744831, 0.0, -2.3561944901923448, 0.0, 1.5707963267948966,
                                 0.78539816339744831}; /* the "ready" pose, also the start */
static const double AMPLITUDE[N] = {0.4, 0.2, 0.3, 0.3, 0.4, 0.3, 0.5}; /* rad, of the reference */

/* The reference q_d(t) = q_rest + a sin^2(pi t) and its rate (at rest at t = 0). */
static void reference(double t, double *q_d, double *qd_d)
{
    int i;
    for (i = 0; i < N; ++i) {
        q_d[i] = Q_REST[i] + AMPLITUDE[i] * sin(PI * t) * sin(PI * t);
        qd_d[i] = AMPLITUDE[i] * PI * sin(2.0 * PI * t);
    }
}

static double norm(const double *x)
{
    double s = 0.0;
    int i;
    for (i = 0; i < N; ++i) s += x[i] * x[i];
    return sqrt(s);
}

static void print_vector(const char *name, const double *x)
{
    int i;
    printf("%s", name);
    for (i = 0; i < N; ++i) printf(" %.17g", x[i]);
    printf("\n");
}

/* Simulate the arm with the contact force f and run the observer of gain K, printing as the usage says. */
static int simulate(const double *force, double gain)
{
    double q[N], qd[N] = {0}, qdd[N], tau[N], tau_sim[N], tau_ext[N], q_d[N], qd_d[N];
    double g[N], C[N * N], Jac[6 * N], p[N], p0[N], integral[N] = {0}, r[N] = {0};
    double max_free = 0.0;
    int detected = 0, released = 0, i, j;
    long step;

    for (i = 0; i < N; ++i) q[i] = Q_REST[i];
    CHECK(panda_momentum(q, qd, p0));
    printf("threshold %g\ncontact %.3f %.3f\n", THRESHOLD, CONTACT_START * DT, CONTACT_END * DT);
    for (step = 0; step < STEPS; ++step) {
        int contact = step >= CONTACT_START && step < CONTACT_END;
        double size;

        /* the observer, on the measured q, qd and the commanded tau of the last step */
        CHECK(panda_momentum(q, qd, p));
        for (i = 0; i < N; ++i) r[i] = gain * (p[i] - integral[i] - p0[i]);
        size = norm(r);
        if (step % 20 == 0) printf("t %.3f r %.6e\n", step * DT, size);
        if (step < CONTACT_START && size > max_free) max_free = size;
        if (!detected && size > THRESHOLD) {
            detected = 1;
            printf("detected %.3f\n", step * DT);
        }
        if (detected && !released && step >= CONTACT_END && size < THRESHOLD) {
            released = 1;
            printf("released %.3f\n", step * DT);
        }

        /* the controller: PD towards the reference plus gravity compensation */
        CHECK(panda_gravity(q, NULL, g));
        reference(step * DT, q_d, qd_d);
        for (i = 0; i < N; ++i) tau[i] = KP[i] * (q_d[i] - q[i]) + KD[i] * (qd_d[i] - qd[i]) + g[i];

        /* the observer's integral: tau + C^T qd - g + r */
        CHECK(panda_coriolis_matrix(q, qd, C)); /* N x N, column-major */
        for (i = 0; i < N; ++i) {
            double ct_qd = 0.0;
            for (j = 0; j < N; ++j) ct_qd += C[i * N + j] * qd[j]; /* (C^T qd)_i = sum_j C_ji qd_j */
            integral[i] += DT * (tau[i] + ct_qd - g[i] + r[i]);
        }

        /* the simulated arm: the contact force at the tool point, J^T [0, f] */
        CHECK(panda_jacobian_panda_hand_tcp(q, Jac)); /* 6 x N, column-major, [omega, pdot] */
        for (i = 0; i < N; ++i) {
            tau_ext[i] = 0.0;
            if (contact)
                for (j = 0; j < 3; ++j) tau_ext[i] += Jac[i * 6 + 3 + j] * force[j];
            tau_sim[i] = tau[i] + tau_ext[i];
        }
        if (step == CONTACT_END - 1) {
            print_vector("q", q);
            print_vector("r", r);
            print_vector("tau_ext", tau_ext);
        }
        CHECK(panda_forward_dynamics(q, qd, tau_sim, NULL, qdd));
        for (i = 0; i < N; ++i) { /* semi-implicit Euler */
            qd[i] += DT * qdd[i];
            q[i] += DT * qd[i];
        }
    }
    printf("max_r_free %.6e\n", max_free);
    return OK;
}

int main(int argc, char **argv)
{
    double force[3] = {10.0, -15.0, -20.0}, gain = 500.0;
    int i;

    if (argc != 1 && argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s [FX FY FZ [K]]\n", argv[0]);
        return 2;
    }
    for (i = 1; i < argc && i < 4; ++i) force[i - 1] = strtod(argv[i], NULL);
    if (argc == 5) gain = strtod(argv[4], NULL);
    if (!(gain > 0.0 && gain * DT < 1.0)) {
        fprintf(stderr, "K must be positive and below 1/dt = %g (a stable discrete observer)\n", 1.0 / DT);
        return 2;
    }
    return simulate(force, gain) == OK ? 0 : 1;
}
