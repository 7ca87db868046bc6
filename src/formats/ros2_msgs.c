/* ROS 2 message definitions and CDR encoding for the MCAP writer (formats/ros2_msgs.h). The schema
 * texts follow the .msg files of ROS 2 (comments left out) with dependencies appended after
 * "================================================================================\nMSG: pkg/Type"
 * separators, as rosbag2 stores them (types fully qualified). */
#include "formats/ros2_msgs.h"

#include <stdlib.h>
#include <string.h>

#define SEP "================================================================================\n"
#define MSG_TIME SEP "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
#define MSG_HEADER SEP "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n"

const char lsim_ros2_pointcloud2_schema[] =
    "std_msgs/Header header\n"
    "uint32 height\n"
    "uint32 width\n"
    "sensor_msgs/PointField[] fields\n"
    "bool is_bigendian\n"
    "uint32 point_step\n"
    "uint32 row_step\n"
    "uint8[] data\n"
    "bool is_dense\n"
    MSG_HEADER MSG_TIME
    SEP "MSG: sensor_msgs/PointField\n"
    "uint8 INT8=1\nuint8 UINT8=2\nuint8 INT16=3\nuint8 UINT16=4\nuint8 INT32=5\nuint8 UINT32=6\n"
    "uint8 FLOAT32=7\nuint8 FLOAT64=8\n"
    "string name\nuint32 offset\nuint8 datatype\nuint32 count\n";

const char lsim_ros2_tfmessage_schema[] =
    "geometry_msgs/TransformStamped[] transforms\n"
    SEP "MSG: geometry_msgs/TransformStamped\n"
    "std_msgs/Header header\nstring child_frame_id\ngeometry_msgs/Transform transform\n"
    MSG_HEADER MSG_TIME
    SEP "MSG: geometry_msgs/Transform\ngeometry_msgs/Vector3 translation\ngeometry_msgs/Quaternion rotation\n"
    SEP "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n"
    SEP "MSG: geometry_msgs/Quaternion\nfloat64 x\nfloat64 y\nfloat64 z\nfloat64 w\n";

void lsim_bytes_put(lsim_bytes *b, const void *src, size_t n)
{
    if (b->failed || n == 0)
        return;
    if (n > b->capacity - b->size) {
        size_t cap = b->capacity ? b->capacity : 256;
        while (cap - b->size < n)
            cap *= 2;
        unsigned char *p = realloc(b->data, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->data = p;
        b->capacity = cap;
    }
    memcpy(b->data + b->size, src, n);
    b->size += n;
}

void lsim_bytes_u8(lsim_bytes *b, uint8_t v) { lsim_bytes_put(b, &v, 1); }

void lsim_bytes_u16(lsim_bytes *b, uint16_t v)
{
    unsigned char d[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    lsim_bytes_put(b, d, 2);
}

void lsim_bytes_u32(lsim_bytes *b, uint32_t v)
{
    unsigned char d[4];
    for (int i = 0; i < 4; ++i)
        d[i] = (unsigned char)(v >> (8 * i));
    lsim_bytes_put(b, d, 4);
}

void lsim_bytes_u64(lsim_bytes *b, uint64_t v)
{
    unsigned char d[8];
    for (int i = 0; i < 8; ++i)
        d[i] = (unsigned char)(v >> (8 * i));
    lsim_bytes_put(b, d, 8);
}

void lsim_bytes_f64(lsim_bytes *b, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    lsim_bytes_u64(b, bits);
}

void lsim_bytes_str(lsim_bytes *b, const char *s)
{
    size_t n = strlen(s);
    lsim_bytes_u32(b, (uint32_t)n);
    lsim_bytes_put(b, s, n);
}

void lsim_bytes_free(lsim_bytes *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* CDR: pad with zeros to a multiple of `n` counted from `origin` (just after the encapsulation). */
static void cdr_align(lsim_bytes *b, size_t origin, size_t n)
{
    static const unsigned char zeros[8] = {0};
    size_t at = (b->size - origin) % n;
    if (at)
        lsim_bytes_put(b, zeros, n - at);
}

static void cdr_u32(lsim_bytes *b, size_t origin, uint32_t v)
{
    cdr_align(b, origin, 4);
    lsim_bytes_u32(b, v);
}

static void cdr_f64(lsim_bytes *b, size_t origin, double v)
{
    cdr_align(b, origin, 8);
    lsim_bytes_f64(b, v);
}

/* CDR string: uint32 length including the terminating NUL, the characters, the NUL. */
static void cdr_string(lsim_bytes *b, size_t origin, const char *s)
{
    size_t n = strlen(s);
    cdr_u32(b, origin, (uint32_t)(n + 1));
    lsim_bytes_put(b, s, n + 1);
}

static size_t cdr_begin(lsim_bytes *b)
{
    static const unsigned char encapsulation[4] = {0x00, 0x01, 0x00, 0x00}; /* CDR_LE, options 0 */
    lsim_bytes_put(b, encapsulation, 4);
    return b->size;
}

static void cdr_header(lsim_bytes *b, size_t origin, int32_t sec, uint32_t nanosec, const char *frame_id)
{
    cdr_u32(b, origin, (uint32_t)sec);
    cdr_u32(b, origin, nanosec);
    cdr_string(b, origin, frame_id);
}

void lsim_ros2_pointcloud2_head(lsim_bytes *b, int32_t sec, uint32_t nanosec, const char *frame_id, uint32_t width,
                                const lsim_ros2_field *fields, size_t field_count, uint32_t point_step)
{
    const size_t o = cdr_begin(b);
    cdr_header(b, o, sec, nanosec, frame_id);
    cdr_u32(b, o, 1); /* height: an unorganised cloud */
    cdr_u32(b, o, width);
    cdr_u32(b, o, (uint32_t)field_count);
    for (size_t i = 0; i < field_count; ++i) {
        cdr_string(b, o, fields[i].name);
        cdr_u32(b, o, fields[i].offset);
        lsim_bytes_u8(b, fields[i].datatype);
        cdr_u32(b, o, 1); /* count */
    }
    lsim_bytes_u8(b, 0); /* is_bigendian */
    cdr_u32(b, o, point_step);
    cdr_u32(b, o, point_step * width); /* row_step */
    cdr_u32(b, o, point_step * width); /* data: uint8[] length */
}

void lsim_ros2_tfmessage(lsim_bytes *b, int32_t sec, uint32_t nanosec, const char *parent, const char *child,
                         const double pose[7])
{
    const size_t o = cdr_begin(b);
    cdr_u32(b, o, 1); /* transforms: one */
    cdr_header(b, o, sec, nanosec, parent);
    cdr_string(b, o, child);
    for (int k = 0; k < 3; ++k)
        cdr_f64(b, o, pose[k]);
    cdr_f64(b, o, pose[4]); /* geometry_msgs/Quaternion: x y z w */
    cdr_f64(b, o, pose[5]);
    cdr_f64(b, o, pose[6]);
    cdr_f64(b, o, pose[3]);
}
