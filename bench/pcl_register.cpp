/* pcl_register: the baseline registrations for the cw paper's experiment 2 (issue 11) — PCL's
 * ICP, GICP and NDT aligning one scan onto another, with the final pose and the time of each.
 *
 * This is the project's only C++ file: lidarsim is C11, but PCL is a C++-only (template) library,
 * so this program stands apart under bench/, is built only with -DLSIM_PCL_BENCH=ON
 * (`make bench-pcl`, which installs Debian's libpcl-dev) and links nothing of lidarsim.
 *
 * Usage: pcl_register SOURCE.csv TARGET.csv [--max-iterations N] [--max-correspondence M]
 *                     [--ndt-resolution R] [--repeat K]
 *
 * SOURCE and TARGET are CSV files with a header row; the columns named x, y and z are used
 * (any position; other columns ignored). Rows whose x, y or z is not finite, or whose `range`
 * (when that column exists) is <= 0, are skipped; an unparsable number is an error. Both clouds
 * are in the sensor frame. Each method aligns SOURCE onto TARGET from the identity and prints
 *
 *   method=icp converged=1 fitness=... iterations=N ms=... tx=... ty=... tz=... roll_deg=...
 *   pitch_deg=... yaw_deg=...
 *
 * where T (target ~ T * source) is given as its translation and R = Rz(yaw) Ry(pitch) Rx(roll).
 *   converged   PCL's hasConverged(). PCL counts stopping at --max-iterations as converged for
 *               all three methods, so iterations == N means the cap stopped it. A method that
 *               fails (exception, or NDT finding no usable cells) prints converged=0.
 *   fitness     PCL's getFitnessScore(): mean squared distance (m^2) from each aligned source
 *               point to its nearest target point.
 *   iterations  PCL's own count (nr_iterations_, protected, read through a subclass).
 *   ms          best of --repeat runs (std::chrono::steady_clock), each on a fresh object, of
 *               setInputSource + setInputTarget + align(): NDT builds its target voxel grid in
 *               setInputTarget, ICP and GICP their k-d trees (and GICP its covariances) in
 *               align(), so timing align() alone would leave NDT's per-scan set-up out.
 *               CSV reading and the fitness score are not timed.
 *
 * Settings: ICP and GICP use --max-correspondence as the correspondence distance; GICP uses
 * k = 20 neighbours for its covariances (fewer if a cloud has fewer points). NDT uses
 * --ndt-resolution as its voxel size, PCL's default step 0.1 m, and stops when a step moves
 * less than 0.3 mm and 0.256 deg (ICP's default convergence thresholds; PCL's NDT default is to
 * run all iterations). Exit status: 0 after the three lines, 2 for bad input or options.
 *
 * Planar scans (a 2-D scanner, all z equal; bench/pcl_selfcheck.py): all three run. NDT's cells
 * are 3-D voxels one layer thick, and PCL inflates their singular covariances, so NDT works (and
 * fails honestly, converged=0, when no voxel holds its 6 points). GICP runs but is degraded: the
 * 20 neighbours of a point on a wall are collinear, the covariance has two zero singular values,
 * and which of the two (z or the wall's in-plane normal) PCL's GICP takes as the "normal" is
 * arbitrary, so many points lose their in-plane normal constraint. Point-to-point ICP is biased
 * when the two scans sample the walls differently. */
#include <pcl/point_cloud.h>
#include <pcl/point_types.h>
#include <pcl/registration/gicp.h>
#include <pcl/registration/icp.h>
#include <pcl/registration/ndt.h>

#include <Eigen/Core>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace {

using Point = pcl::PointXYZ;
using Cloud = pcl::PointCloud<Point>;

const char *const kUsage =
    "usage: pcl_register SOURCE.csv TARGET.csv [--max-iterations N (default 50)]\n"
    "                    [--max-correspondence M (default 0.5)] [--ndt-resolution R (default 0.5)]\n"
    "                    [--repeat K (default 5: time = best of K)]\n";

struct Options {
    const char *source = nullptr;
    const char *target = nullptr;
    int max_iterations = 50;
    double max_correspondence = 0.5;
    double ndt_resolution = 0.5;
    int repeat = 5;
};

/* PCL keeps the iteration count in a protected member; this exposes it. */
template <class Base> struct Counted : Base {
    int iterations() const { return this->nr_iterations_; }
};

std::string trim(const std::string &s)
{
    size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t'))
        b++;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n'))
        e--;
    std::string t = s.substr(b, e - b);
    if (t.size() >= 2 && t.front() == '"' && t.back() == '"')
        t = t.substr(1, t.size() - 2);
    return t;
}

std::vector<std::string> split(const std::string &line)
{
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t comma = line.find(',', start);
        out.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos)
            return out;
        start = comma + 1;
    }
}

/* strtod of a whole field; "nan" and "inf" parse (and are then skipped as non-finite). */
bool parse_double(const std::string &s, double *v)
{
    if (s.empty())
        return false;
    char *end = nullptr;
    errno = 0;
    *v = std::strtod(s.c_str(), &end);
    return end && *end == '\0' && end != s.c_str();
}

/* Reads the x, y, z columns of a CSV file. Returns false (message on stderr) on bad input. */
bool read_csv(const char *path, Cloud &cloud, size_t *skipped)
{
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "pcl_register: cannot open '%s': check the path (a CSV file with a header row x,y,z,...)\n",
                     path);
        return false;
    }
    std::string line;
    size_t lineno = 0;
    while (std::getline(in, line)) {
        lineno++;
        if (!trim(line).empty())
            break;
    }
    if (trim(line).empty()) {
        std::fprintf(stderr, "pcl_register: '%s' is empty: it needs a header row naming the columns x, y, z\n", path);
        return false;
    }
    std::vector<std::string> header = split(line);
    long ix = -1, iy = -1, iz = -1, ir = -1;
    for (size_t i = 0; i < header.size(); i++) {
        const std::string &h = header[i];
        long *slot = h == "x" ? &ix : h == "y" ? &iy : h == "z" ? &iz : h == "range" ? &ir : nullptr;
        if (slot && *slot < 0)
            *slot = (long)i;
    }
    if (ix < 0 || iy < 0 || iz < 0) {
        std::fprintf(stderr,
                     "pcl_register: '%s': the header row (line %zu) has no column named %s: it needs columns "
                     "named x, y and z (e.g. lidarsim scan ... --format csv)\n",
                     path, lineno, ix < 0 ? "x" : iy < 0 ? "y" : "z");
        return false;
    }
    long need = std::max(std::max(ix, iy), std::max(iz, ir));
    *skipped = 0;
    while (std::getline(in, line)) {
        lineno++;
        if (trim(line).empty())
            continue;
        std::vector<std::string> f = split(line);
        if ((long)f.size() <= need) {
            std::fprintf(stderr, "pcl_register: %s:%zu: %zu columns, the header has %zu: fix or remove the row\n",
                         path, lineno, f.size(), header.size());
            return false;
        }
        double v[4] = {0, 0, 0, 1};
        const long idx[4] = {ix, iy, iz, ir};
        const char *names[4] = {"x", "y", "z", "range"};
        for (int k = 0; k < 4; k++) {
            if (idx[k] < 0)
                continue;
            if (!parse_double(f[(size_t)idx[k]], &v[k])) {
                std::fprintf(stderr, "pcl_register: %s:%zu: column '%s': '%s' is not a number\n", path, lineno,
                             names[k], f[(size_t)idx[k]].c_str());
                return false;
            }
        }
        if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2]) || !(v[3] > 0)) {
            (*skipped)++;
            continue;
        }
        cloud.push_back(Point((float)v[0], (float)v[1], (float)v[2]));
    }
    if (cloud.size() < 10) {
        std::fprintf(stderr,
                     "pcl_register: '%s' has %zu valid points (finite x, y, z%s): registration needs at least 10\n",
                     path, cloud.size(), ir >= 0 ? ", range > 0" : "");
        return false;
    }
    return true;
}

bool parse_options(int argc, char **argv, Options &o)
{
    std::vector<const char *> files;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        }
        if (a.size() > 1 && a[0] == '-') {
            if (a != "--max-iterations" && a != "--max-correspondence" && a != "--ndt-resolution" && a != "--repeat") {
                std::fprintf(stderr, "pcl_register: unknown option '%s'\n%s", argv[i], kUsage);
                return false;
            }
            if (i + 1 >= argc) {
                std::fprintf(stderr, "pcl_register: %s needs a value\n%s", argv[i], kUsage);
                return false;
            }
            const char *val = argv[++i];
            double v;
            if (!parse_double(val, &v) || !std::isfinite(v)) {
                std::fprintf(stderr, "pcl_register: %s '%s' is not a number\n%s", a.c_str(), val, kUsage);
                return false;
            }
            if (a == "--max-iterations" || a == "--repeat") {
                if (v != std::floor(v) || v < 1 || v > 1000000) {
                    std::fprintf(stderr, "pcl_register: %s '%s' must be a whole number from 1 to 1000000\n", a.c_str(),
                                 val);
                    return false;
                }
                (a == "--repeat" ? o.repeat : o.max_iterations) = (int)v;
            } else {
                if (!(v > 0) || v > 1e6) {
                    std::fprintf(stderr, "pcl_register: %s '%s' must be a distance in metres > 0\n", a.c_str(), val);
                    return false;
                }
                (a == "--ndt-resolution" ? o.ndt_resolution : o.max_correspondence) = v;
            }
        } else {
            files.push_back(argv[i]);
        }
    }
    if (files.size() != 2) {
        std::fprintf(stderr, "pcl_register: expected SOURCE.csv and TARGET.csv, got %zu file%s\n%s", files.size(),
                     files.size() == 1 ? "" : "s", kUsage);
        return false;
    }
    o.source = files[0];
    o.target = files[1];
    return true;
}

struct Result {
    bool converged = false;
    double fitness = std::numeric_limits<double>::quiet_NaN();
    int iterations = -1;
    double ms = std::numeric_limits<double>::infinity();
    Eigen::Matrix4d T = Eigen::Matrix4d::Constant(std::numeric_limits<double>::quiet_NaN());
};

/* %.6f of a value that rounds to zero prints 0.000000, not -0.000000 */
double z6(double v) { return std::fabs(v) < 5e-7 ? 0.0 : v; }

void print(const char *name, const Result &r)
{
    const Eigen::Matrix4d &T = r.T;
    const double deg = 180.0 / M_PI;
    /* R = Rz(yaw) Ry(pitch) Rx(roll) */
    double pitch = std::asin(std::max(-1.0, std::min(1.0, -T(2, 0))));
    double roll = std::atan2(T(2, 1), T(2, 2));
    double yaw = std::atan2(T(1, 0), T(0, 0));
    std::printf("method=%s converged=%d fitness=%.6g iterations=%d ms=%.3f tx=%.6f ty=%.6f tz=%.6f roll_deg=%.6f "
                "pitch_deg=%.6f yaw_deg=%.6f\n",
                name, r.converged ? 1 : 0, r.fitness, r.iterations, r.ms, z6(T(0, 3)), z6(T(1, 3)), z6(T(2, 3)),
                z6(roll * deg), z6(pitch * deg), z6(yaw * deg));
    std::fflush(stdout);
}

/* Runs one method --repeat times, each on a fresh object from make(); keeps the best time and the
 * last run's result (the methods are deterministic). */
template <class Make>
Result run(const char *name, const Options &o, const Cloud::ConstPtr &src, const Cloud::ConstPtr &tgt, Make make)
{
    Result r;
    try {
        for (int k = 0; k < o.repeat; k++) {
            auto reg = make();
            Cloud aligned;
            auto t0 = std::chrono::steady_clock::now();
            reg->setInputSource(src);
            reg->setInputTarget(tgt);
            reg->align(aligned);
            auto t1 = std::chrono::steady_clock::now();
            r.ms = std::min(r.ms, std::chrono::duration<double, std::milli>(t1 - t0).count());
            r.converged = reg->hasConverged();
            r.iterations = reg->iterations();
            r.T = reg->getFinalTransformation().template cast<double>();
            if (k == o.repeat - 1)
                r.fitness = reg->getFitnessScore();
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "pcl_register: %s failed: %s\n", name, e.what());
        r = Result();
    }
    if (!r.T.allFinite())
        r.converged = false;
    return r;
}

} // namespace

int main(int argc, char **argv)
{
    Options o;
    if (!parse_options(argc, argv, o))
        return 2;
    Cloud::Ptr src(new Cloud), tgt(new Cloud);
    size_t skipped_src = 0, skipped_tgt = 0;
    if (!read_csv(o.source, *src, &skipped_src) || !read_csv(o.target, *tgt, &skipped_tgt))
        return 2;
    std::fprintf(stderr, "pcl_register: source %zu points (skipped rows: %zu), target %zu points (skipped rows: %zu)\n",
                 src->size(), skipped_src, tgt->size(), skipped_tgt);

    using ICP = Counted<pcl::IterativeClosestPoint<Point, Point>>;
    using GICP = Counted<pcl::GeneralizedIterativeClosestPoint<Point, Point>>;
    using NDT = Counted<pcl::NormalDistributionsTransform<Point, Point>>;
    const int k_gicp = (int)std::min<size_t>(20, std::min(src->size(), tgt->size()));

    print("icp", run("icp", o, src, tgt, [&] {
              auto r = std::make_unique<ICP>();
              r->setMaximumIterations(o.max_iterations);
              r->setMaxCorrespondenceDistance(o.max_correspondence);
              return r;
          }));
    print("gicp", run("gicp", o, src, tgt, [&] {
              auto r = std::make_unique<GICP>();
              r->setMaximumIterations(o.max_iterations);
              r->setMaxCorrespondenceDistance(o.max_correspondence);
              r->setCorrespondenceRandomness(k_gicp);
              return r;
          }));
    print("ndt", run("ndt", o, src, tgt, [&] {
              auto r = std::make_unique<NDT>();
              r->setMaximumIterations(o.max_iterations);
              r->setResolution((float)o.ndt_resolution);
              r->setTransformationEpsilon(3e-4 * 3e-4);
              r->setTransformationRotationEpsilon(0.99999);
              return r;
          }));
    return 0;
}
