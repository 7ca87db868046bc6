// PCL as an independent reader of lidarsim's PLY and PCD files (tests/test_ply_pcl.py).
//
// usage: pcl_read_cloud FILE.ply|FILE.pcd
//
// Loads the file with PCL's own reader (pcl::io::loadPLYFile / loadPCDFile into a
// pcl::PCLPointCloud2, which keeps every field PCL understands), then prints, on stdout:
//   fields N
//   NAME DATATYPE COUNT        one line per field PCL kept (DATATYPE: pcl::PCLPointField's code)
//   points M
//   v1,v2,...                  one line per point, every field in order, as PCL decoded it
// Exit 1 with a message on stderr when PCL cannot read the file.
#include <pcl/PCLPointCloud2.h>
#include <pcl/common/io.h>
#include <pcl/io/pcd_io.h>
#include <pcl/io/ply_io.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace {

// One value of field `f` at byte `at` of a point, printed as PCL's type would print it.
void print_value(const pcl::PCLPointField &f, const std::uint8_t *at)
{
    switch (f.datatype) {
    case pcl::PCLPointField::INT8: { std::int8_t v; std::memcpy(&v, at, 1); std::printf("%d", v); break; }
    case pcl::PCLPointField::UINT8: { std::uint8_t v; std::memcpy(&v, at, 1); std::printf("%u", v); break; }
    case pcl::PCLPointField::INT16: { std::int16_t v; std::memcpy(&v, at, 2); std::printf("%d", v); break; }
    case pcl::PCLPointField::UINT16: { std::uint16_t v; std::memcpy(&v, at, 2); std::printf("%u", v); break; }
    case pcl::PCLPointField::INT32: { std::int32_t v; std::memcpy(&v, at, 4); std::printf("%" PRId32, v); break; }
    case pcl::PCLPointField::UINT32: { std::uint32_t v; std::memcpy(&v, at, 4); std::printf("%" PRIu32, v); break; }
    case pcl::PCLPointField::FLOAT32: { float v; std::memcpy(&v, at, 4); std::printf("%.9g", v); break; }
    case pcl::PCLPointField::FLOAT64: { double v; std::memcpy(&v, at, 8); std::printf("%.17g", v); break; }
    default: std::printf("?"); break;
    }
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: pcl_read_cloud FILE.ply|FILE.pcd\n");
        return 2;
    }
    const std::string path = argv[1];
    pcl::PCLPointCloud2 cloud;
    const bool ply = path.size() > 4 && path.compare(path.size() - 4, 4, ".ply") == 0;
    const int rc = ply ? pcl::io::loadPLYFile(path, cloud) : pcl::io::loadPCDFile(path, cloud);
    if (rc < 0) {
        std::fprintf(stderr, "pcl_read_cloud: PCL cannot read %s (code %d)\n", path.c_str(), rc);
        return 1;
    }
    std::printf("fields %zu\n", cloud.fields.size());
    for (const auto &f : cloud.fields)
        std::printf("%s %d %u\n", f.name.c_str(), static_cast<int>(f.datatype), static_cast<unsigned>(f.count));
    const std::size_t n = static_cast<std::size_t>(cloud.width) * cloud.height;
    std::printf("points %zu\n", n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint8_t *point = cloud.data.data() + i * cloud.point_step;
        bool first = true;
        for (const auto &f : cloud.fields) {
            for (std::uint32_t k = 0; k < f.count; ++k) {
                if (!first)
                    std::putchar(',');
                first = false;
                print_value(f, point + f.offset + k * pcl::getFieldSize(f.datatype));
            }
        }
        std::putchar('\n');
    }
    return 0;
}
