# lidarsim — top-level entry points.
#   make        build (Release) -> build/lidarsim
#   make demo   install Debian packages, build, run the bundled street demo -> out/demo/
#   make test   install Debian packages (PCL too, for the fit baselines), build, run ctest normally and under ASan+UBSan
#   make fuzz   install clang, build the libFuzzer harnesses, run each FUZZ_SECONDS (default 180)
#   make bench-pcl  install libpcl-dev, build build-pcl/pcl_register (PCL ICP/GICP/NDT baseline)
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
DEB_PKGS   = cmake make gcc pkg-config libembree-dev libassimp-dev assimp-testmodels libyaml-dev \
             libpng-dev libjson-c-dev libxml2-dev liblbfgs-dev python3 python3-numpy valgrind \
             libegl-dev libgl-dev libegl1 libegl-mesa0 libgl1-mesa-dri libopenmpi-dev openmpi-bin \
             libglfw3-dev libglx-mesa0 xvfb xauth
FUZZ_PKGS  = clang libclang-rt-14-dev
PCL_PKGS   = libpcl-dev
FUZZ_SECONDS ?= 180
PY         = /usr/bin/python3

.PHONY: all build deps fuzz-deps pcl-deps demo test test-release test-asan fuzz bench bench-pcl clean

all: build

build:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build -j $(JOBS)

# Install only what is missing, so repeated runs need no network.
define install_missing
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	fi
endef

deps:
	$(call install_missing,$(DEB_PKGS))

fuzz-deps: deps
	$(call install_missing,$(FUZZ_PKGS))

pcl-deps: deps
	$(call install_missing,$(PCL_PKGS))

demo: deps build
	mkdir -p out/demo
	build/lidarsim scan examples/street/street.yaml -o out/demo/street.pcd --bev out/demo/street_bev.png --bev-extent 35 --stats

test: deps pcl-deps test-release test-asan

# The Release build also builds PCL's baselines (bench/pcl_register.cpp) for the cw paper's
# experiment 2 test (tests/pcl_baselines.py).
test-release:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLSIM_PCL_BENCH=ON >/dev/null
	cmake --build build -j $(JOBS)
	cd build && ctest --output-on-failure -j $(JOBS)

test-asan:
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DLSIM_SANITIZE=ON -DLSIM_MPI=OFF >/dev/null
	cmake --build build-asan -j $(JOBS)
	cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --output-on-failure -j $(JOBS)

# libFuzzer harnesses (fuzz/): every input lidarsim reads; corpora and crashes in build-fuzz/fuzz/.
fuzz: fuzz-deps
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DLSIM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build-fuzz -j $(JOBS)
	cmake -S . -B build-fuzz-ub -DCMAKE_C_COMPILER=clang -DLSIM_FUZZ=ON -DLSIM_FUZZ_ASAN=OFF \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build-fuzz-ub -j $(JOBS) --target fuzz_mesh
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh build-fuzz

bench: build
	build/lidarsim bench

# PCL's ICP, GICP and NDT (bench/pcl_register.cpp, the project's only C++) -> build-pcl/pcl_register.
bench-pcl: pcl-deps
	cmake -S . -B build-pcl -DCMAKE_BUILD_TYPE=Release -DLSIM_PCL_BENCH=ON >/dev/null
	cmake --build build-pcl -j $(JOBS) --target pcl_register

clean:
	rm -rf build build-asan build-fuzz build-fuzz-ub build-pcl out
