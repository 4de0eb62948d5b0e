/*
 * vlab.h: the robot API for C programs, compiled to WebAssembly by the lab.
 *
 * Every function below is an import of module "vlab", the lab's robot API (version
 * VLAB_ABI_VERSION, docs/programs.md "WebAssembly programs" has the full table).
 * Parts are numbered: look a sensor or actuator up once by name (vlab_sensor,
 * vlab_actuator) and keep its index. Functions that can fail answer a VLAB_* status
 * (0 is success). printf, puts and fprintf(stderr, ...) print to the robot's console,
 * one line per '\n'.
 *
 * A program exports pre_step (required), init and post_step (optional):
 *
 *     #include <vlab.h>
 *     static int left, right;
 *     static void start(void) { left = vlab_actuator("left"); right = vlab_actuator("right"); }
 *     static void decide(void) { vlab_set_speed(left, 2.0); vlab_set_speed(right, 2.0); }
 *     static void nothing(void) {}
 *     VLAB_PROGRAM(start, decide, nothing)
 *     VLAB_PROGRAM_NAME("straight ahead")
 */
#ifndef VLAB_H
#define VLAB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The robot API version this header speaks; the lab refuses a module built for another. */
#define VLAB_ABI_VERSION 1

/* Statuses (0 is success; counts and lengths are never negative). */
#define VLAB_OK 0
#define VLAB_NO_SUCH_PART (-1)
#define VLAB_WRONG_KIND (-2)
#define VLAB_NOT_FINITE (-3)
#define VLAB_BAD_COLOR (-4)
#define VLAB_OVER_BUDGET (-5)
#define VLAB_TOO_FEW_POINTS (-6)

/* What vlab_reading_type answers: the shape of a sensor's latest reading. */
#define VLAB_READING_NONE 0        /* no reading yet */
#define VLAB_READING_SCALAR 1      /* [value] */
#define VLAB_READING_VECTOR 2      /* [x, y, z] */
#define VLAB_READING_SCAN 3        /* [angle_min, angle_step, max_range, range_0, ...] */
#define VLAB_READING_KEYS 4        /* no values; the keys through vlab_key_held / vlab_key_name */
#define VLAB_READING_TICKS 5       /* [ticks, angle] */
#define VLAB_READING_JOINT 6       /* [position, velocity] */
#define VLAB_READING_POSE2D 7      /* [x, y, theta] */
#define VLAB_READING_CONTACT 8     /* [touching, fx, fy, fz, px, py, pz] */
#define VLAB_READING_IMAGE 9       /* [width, height, mean_r, mean_g, mean_b]; RGB through vlab_reading_bytes */
#define VLAB_READING_DEPTH_IMAGE 10 /* [width, height, max_range, nearest]; u16 mm through vlab_reading_bytes */
#define VLAB_READING_ORIENTATION 11 /* [roll, pitch, yaw, w, x, y, z] */
#define VLAB_READING_LANDMARKS 12  /* [distance, bearing, elevation] per beacon; ids through vlab_key_name */
#define VLAB_READING_RADIO 13      /* [messages]; sender of k: vlab_key_name(2k), text: vlab_key_name(2k+1) */

#define VLAB_IMPORT(name) __attribute__((import_module("vlab"), import_name(name)))

/* The console and the lab's clock. */
VLAB_IMPORT("log") void vlab_log(const char *text, size_t len);     /* one console line */
VLAB_IMPORT("panic") void vlab_panic(const char *text, size_t len); /* stops the program with this message */
VLAB_IMPORT("time") double vlab_time(void);                         /* sim seconds of the latest readings */
VLAB_IMPORT("step_count") int64_t vlab_step_count(void);            /* the lab's step of the latest readings */
VLAB_IMPORT("dt") double vlab_dt(void);                             /* seconds per control step */
VLAB_IMPORT("seed") int64_t vlab_seed(void);                        /* the same every run: seed your own random numbers */

/* Parts, by index: find (-1 when there is none), names and catalogue types (kinds). The
 * string functions write up to cap bytes (no NUL) and return the full length. */
VLAB_IMPORT("sensor_count") int32_t vlab_sensor_count(void);
VLAB_IMPORT("sensor_find") int32_t vlab_sensor_find(const char *name, size_t len);
VLAB_IMPORT("sensor_name") int32_t vlab_sensor_name(int32_t sensor, char *buf, size_t cap);
VLAB_IMPORT("sensor_kind") int32_t vlab_sensor_kind(int32_t sensor, char *buf, size_t cap);
VLAB_IMPORT("actuator_count") int32_t vlab_actuator_count(void);
VLAB_IMPORT("actuator_find") int32_t vlab_actuator_find(const char *name, size_t len);
VLAB_IMPORT("actuator_name") int32_t vlab_actuator_name(int32_t actuator, char *buf, size_t cap);
VLAB_IMPORT("actuator_kind") int32_t vlab_actuator_kind(int32_t actuator, char *buf, size_t cap);

/* Readings: the type (VLAB_READING_*), how many values, one value (NaN if none), all of
 * them (copies up to cap doubles, returns how many there are), a camera's pixels. */
VLAB_IMPORT("reading_type") int32_t vlab_reading_type(int32_t sensor);
VLAB_IMPORT("reading_len") int32_t vlab_reading_len(int32_t sensor);
VLAB_IMPORT("reading_value") double vlab_reading_value(int32_t sensor, int32_t k);
VLAB_IMPORT("reading_read") int32_t vlab_reading_read(int32_t sensor, double *buf, size_t cap);
VLAB_IMPORT("reading_bytes") int32_t vlab_reading_bytes(int32_t sensor, uint8_t *buf, size_t cap);
/* A keyboard: 1 while the robot's owner holds the key (any case: "I", "ArrowUp"), 0 if
 * not, VLAB_WRONG_KIND for another sensor; the k-th key held (also landmark ids, radio). */
VLAB_IMPORT("key_held") int32_t vlab_key_held(int32_t sensor, const char *key, size_t len);
VLAB_IMPORT("key_name") int32_t vlab_key_name(int32_t sensor, int32_t k, char *buf, size_t cap);

/* Commands, kept until changed: a SimpleMotor's speed, a SimpleServo's position, a
 * DiffDrive's forward speed (m/s) and turn rate (rad/s). */
VLAB_IMPORT("set_speed") int32_t vlab_set_speed(int32_t actuator, double speed);
VLAB_IMPORT("set_position") int32_t vlab_set_position(int32_t actuator, double position);
VLAB_IMPORT("set_drive") int32_t vlab_set_drive(int32_t actuator, double v, double omega);

/* What the program thinks, drawn in the lab: its pose estimate, dots, lines through
 * points (x, y, z triples), labels; color a name or "#rrggbb"; keep != 0: until cleared. */
VLAB_IMPORT("publish_estimate") int32_t vlab_publish_estimate(double x, double y, double theta);
VLAB_IMPORT("draw_points")
int32_t vlab_draw_points(const double *xyz, size_t count, const char *color, size_t color_len, int32_t keep);
VLAB_IMPORT("draw_lines")
int32_t vlab_draw_lines(const double *xyz, size_t count, const char *color, size_t color_len, int32_t keep);
VLAB_IMPORT("draw_text")
int32_t vlab_draw_text(double x, double y, double z, const char *text, size_t len, const char *color,
                       size_t color_len, int32_t keep);
VLAB_IMPORT("clear_drawings") void vlab_clear_drawings(void);
VLAB_IMPORT("hold_drawings") void vlab_hold_drawings(void);

/* Sends a message on the robot's Radio with this step's answer. */
VLAB_IMPORT("radio_send") int32_t vlab_radio_send(const char *text, size_t len);

#undef VLAB_IMPORT

/* The same with NUL-terminated strings. */
static inline int32_t vlab_sensor(const char *name) { return vlab_sensor_find(name, strlen(name)); }
static inline int32_t vlab_actuator(const char *name) { return vlab_actuator_find(name, strlen(name)); }
static inline void vlab_print(const char *text) { vlab_log(text, strlen(text)); }
static inline int32_t vlab_key(int32_t sensor, const char *key) { return vlab_key_held(sensor, key, strlen(key)); }

/* Exports a function to the lab under `name`. */
#define VLAB_EXPORT(name) __attribute__((export_name(name)))

/* The three exports from three functions of the program's, each `void f(void)`: called
 * once before the first step, before each step's physics (set commands), and with each
 * step's fresh readings. */
#define VLAB_PROGRAM(init_fn, pre_step_fn, post_step_fn)                    \
    VLAB_EXPORT("init") void vlab_program_init(void) { init_fn(); }          \
    VLAB_EXPORT("pre_step") void vlab_program_pre_step(void) { pre_step_fn(); } \
    VLAB_EXPORT("post_step") void vlab_program_post_step(void) { post_step_fn(); }

/* The program's display name, shown in the robot's console when it starts. */
#define VLAB_PROGRAM_NAME(text) \
    VLAB_EXPORT("vlab_program_name") const char *vlab_program_name(void) { return text; }

/* The version this program was built for, which the lab asks first. Weak, so every
 * file of a program may include this header and the linker keeps one. */
__attribute__((weak)) VLAB_EXPORT("vlab_abi_version") int32_t vlab_abi_version(void) { return VLAB_ABI_VERSION; }

#ifdef __cplusplus
}
#endif

#endif /* VLAB_H */
