# lidarsim — top-level entry points.
#   make        build (Release) -> build/lidarsim
#   make demo   install Debian packages, build, run the bundled street demo -> out/demo/
#   make test   install Debian packages (PCL for the fit baselines, node/npm for the LAS/MCAP readers too), build, run ctest normally and under ASan+UBSan
#   make fuzz   install clang, build the libFuzzer harnesses, run each FUZZ_SECONDS (default 180)
#   make bench-pcl  install libpcl-dev, build build-pcl/pcl_register (PCL ICP/GICP/NDT baseline)
#   make install PREFIX=DIR   build, then install the library, header, CLI, man page, examples,
#                   lidarsim.pc and the CMake package into DIR (default /usr/local)
#   make deb        build, then build/lidarsim_VERSION_ARCH.deb (CPack; apt-get install ./build/lidarsim_*.deb)
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
DEB_PKGS   = cmake make gcc pkg-config libembree-dev libassimp-dev assimp-testmodels libyaml-dev \
             libcairo2-dev fonts-dejavu-core libjson-c-dev libxml2-dev liblbfgs-dev python3 python3-numpy \
             python3-pytest valgrind libegl-dev libgl-dev libegl1 libegl-mesa0 libgl1-mesa-dri libopenmpi-dev \
             openmpi-bin binutils dpkg-dev file man-db groff-base libglfw3-dev libglx-mesa0 xvfb xauth
# For the tests only: node and npm run the independent LAS and MCAP readers of tests/test_las_mcap.py
# (@loaders.gl/las, @mcap/core, installed by npm into the test's work folder).
# python3-open3d: tests/test_ply_open3d.py reads the PLY with Open3D.
# xdotool, x11-apps (xwd): tests/test_cli_view_keys.py presses keys in the live viewer, grabs its window.
TEST_PKGS  = python3-open3d xdotool x11-apps
# Debian's nodejs and npm, unless a node with its npm is already there (NodeSource's nodejs
# package ships npm itself and conflicts with Debian's npm package).
NODE_PKGS  = nodejs npm
FUZZ_PKGS  = clang libclang-rt-14-dev
PCL_PKGS   = libpcl-dev
FUZZ_SECONDS ?= 180
PY         = /usr/bin/python3
PREFIX    ?= /usr/local

.PHONY: all build install deb deb-check deps test-deps node-deps fuzz-deps pcl-deps demo test test-release test-asan fuzz bench bench-pcl clean

all: build

build:
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build -j $(JOBS)

install: build
	cmake --install build --prefix $(PREFIX)

# dpkg-shlibdeps (dpkg-dev) computes the package's Depends.
deb: deps build
	cd build && cpack -G DEB

# The .deb as a user installs it: apt-get install ./lidarsim_*.deb (as root), its /usr/bin/lidarsim
# scans the demo street, its Python package imports from Debian's python3, then it is removed
# again. `make test` runs it (CI machines are fresh Debian 12 systems; run it by hand only where
# installing into /usr is fine).
deb-check: deb
	apt-get install -y ./build/lidarsim_$$(sed -n 's/^project(lidarsim VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)_amd64.deb
	cd /tmp && /usr/bin/lidarsim --version && /usr/bin/lidarsim scan $(CURDIR)/examples/street/street.yaml \
	  -o /tmp/lidarsim-deb-check.pcd --quiet && test -s /tmp/lidarsim-deb-check.pcd
	cd /tmp && env -u PYTHONPATH -u LIDARSIM_LIBRARY $(PY) -c "import lidarsim; print('python lidarsim', lidarsim.version())"
	rm -f /tmp/lidarsim-deb-check.pcd
	apt-get remove -y lidarsim

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

test-deps: deps
	$(call install_missing,$(TEST_PKGS))
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  echo "node $$(node --version) and npm $$(npm --version) are there"; \
	else $(MAKE) --no-print-directory node-deps; fi

node-deps:
	$(call install_missing,$(NODE_PKGS))

fuzz-deps: deps
	$(call install_missing,$(FUZZ_PKGS))

pcl-deps: deps
	$(call install_missing,$(PCL_PKGS))

demo: deps build
	mkdir -p out/demo
	build/lidarsim scan examples/street/street.yaml -o out/demo/street.pcd --stats
	build/lidarsim render out/demo/street.pcd -o out/demo/street_bev.png --view bev --color label --extent 35

test: deps test-deps pcl-deps test-release test-asan deb-check

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
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
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
