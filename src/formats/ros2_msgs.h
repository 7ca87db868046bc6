/* ROS 2 messages for the MCAP writer: the ros2msg schema texts of sensor_msgs/msg/PointCloud2 and
 * tf2_msgs/msg/TFMessage (with their dependencies, in rosbag2's concatenated form), and their CDR
 * encoding (XCDR1 little-endian: the 4-byte encapsulation header 00 01 00 00, then the fields
 * aligned to their size counted from after that header). */
#ifndef LSIM_FORMATS_ROS2_MSGS_H
#define LSIM_FORMATS_ROS2_MSGS_H

#include <stddef.h>
#include <stdint.h>

/* A growing byte buffer; `failed` is set (and the bytes stop growing) when memory runs out. */
typedef struct lsim_bytes {
    unsigned char *data;
    size_t size, capacity;
    int failed;
} lsim_bytes;

void lsim_bytes_put(lsim_bytes *b, const void *src, size_t n);
void lsim_bytes_u8(lsim_bytes *b, uint8_t v);
void lsim_bytes_u16(lsim_bytes *b, uint16_t v);
void lsim_bytes_u32(lsim_bytes *b, uint32_t v);
void lsim_bytes_u64(lsim_bytes *b, uint64_t v);
void lsim_bytes_f64(lsim_bytes *b, double v);
/* uint32 length + bytes (MCAP's string and bytes). */
void lsim_bytes_str(lsim_bytes *b, const char *s);
void lsim_bytes_free(lsim_bytes *b);

extern const char lsim_ros2_pointcloud2_schema[];
extern const char lsim_ros2_tfmessage_schema[];

/* A PointCloud2 field: name, byte offset in the point, PointField datatype (4 UINT16, 6 UINT32,
 * 7 FLOAT32). */
typedef struct lsim_ros2_field {
    const char *name;
    uint32_t offset;
    uint8_t datatype;
} lsim_ros2_field;

/* The CDR of a PointCloud2 up to its data bytes: encapsulation header, header (stamp, frame_id),
 * height 1, width, fields, is_bigendian 0, point_step, row_step and the data's uint32 length.
 * The message then continues with width x point_step data bytes and the is_dense byte. */
void lsim_ros2_pointcloud2_head(lsim_bytes *b, int32_t sec, uint32_t nanosec, const char *frame_id, uint32_t width,
                                const lsim_ros2_field *fields, size_t field_count, uint32_t point_step);

/* The CDR of a TFMessage holding one TransformStamped (parent -> child; translation x y z,
 * rotation qw qx qy qz as lidarsim orders a pose). */
void lsim_ros2_tfmessage(lsim_bytes *b, int32_t sec, uint32_t nanosec, const char *parent, const char *child,
                         const double pose[7]);

#endif
