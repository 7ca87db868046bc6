# lidarsim — top-level entry points (Debian 12). Targets that need packages install the missing ones
# with apt-get (as root); what each installs and how long it takes: docs/install.md and docs/tests.md.
#   make            the library and the CLI only (Release) -> build/lidarsim, build/liblidarsim.so, .a
#   make demo       + the build packages, build, scan the bundled street demo -> out/demo/
#   make check      the core test suite (Release, light dependencies): ctest -LE interop
#   make docs       the documentation site (MkDocs + Material, mkdocs.yml) -> build/site/, offline
#   make test-interop  other projects' readers of lidarsim's files (PCL, Open3D, npm): ctest -L interop
#   make test-asan  the core suite under AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/)
#   make test       the whole suite, as CI runs it: check, test-asan, test-interop, deb-check
#   make fuzz       install clang, build the libFuzzer harnesses, run each FUZZ_SECONDS (default 180)
#   make bench-pcl  install libpcl-dev, build build-pcl/pcl_register (PCL ICP/GICP/NDT baseline)
#   make install PREFIX=DIR   build, then install the library, header, CLI, man page, examples,
#                   lidarsim.pc and the CMake package into DIR (default /usr/local)
#   make deb        build, then build/lidarsim_VERSION_ARCH.deb (CPack; apt-get install ./build/lidarsim_*.deb)
#   make deb-check  the .deb extracted into a throwaway folder and run from there (never installed)
# B, BA: the Release and the sanitizer build folders (default build, build-asan).
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
B         ?= build
BA        ?= build-asan
# To build the library and the CLI (MPI is optional: `make check` adds it).
BUILD_PKGS = cmake make gcc pkg-config libembree-dev libassimp-dev libyaml-dev libcairo2-dev \
             libjson-c-dev libxml2-dev liblbfgs-dev libegl-dev libgl-dev libglfw3-dev libpcap-dev
# The demo's meshes (glTF truck, OBJ figure) and the font of its picture.
DEMO_PKGS  = assimp-testmodels fonts-dejavu-core
# The core suite: Python with numpy and pytest, valgrind, Mesa's EGL/GL (raster engine, viewer under
# xvfb; xdotool and xwd press keys in the live viewer and grab its window), OpenMPI (dataset over
# ranks), the .deb tools (dpkg-shlibdeps, file), man (the manual page renders without warnings),
# MkDocs with the Material theme and Chromium (tests/test_docs_site.py builds the site and reads it
# in headless Chromium).
DOCS_PKGS  = mkdocs mkdocs-material
CHECK_PKGS = python3 python3-numpy python3-pytest valgrind libegl1 libegl-mesa0 libgl1-mesa-dri \
             libglx-mesa0 libopenmpi-dev openmpi-bin binutils dpkg-dev file man-db groff-base xvfb xauth \
             xdotool x11-apps $(DOCS_PKGS) chromium
# The interoperability checks: PCL (tests/pcl_*.py, with VTK and Qt), Open3D (test_ply_open3d.py),
# and node + npm for the LAS and MCAP readers of test_las_mcap_npm (@loaders.gl/las, @mcap/core,
# installed by npm into the test's work folder).
INTEROP_PKGS = libpcl-dev python3-open3d
# Debian's nodejs and npm, unless a node with its npm is already there (NodeSource's nodejs
# package ships npm itself and conflicts with Debian's npm package).
NODE_PKGS  = nodejs npm
FUZZ_PKGS  = clang libclang-rt-14-dev
PCL_PKGS   = libpcl-dev
FUZZ_SECONDS ?= 180
PY         = /usr/bin/python3
PREFIX    ?= /usr/local
VERSION    = $(shell sed -n 's/^project.lidarsim VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
SAN_ENV    = ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
             LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0

.PHONY: all build install deb deb-check deps build-deps demo-deps check-deps interop-deps node-deps fuzz-deps \
        pcl-deps docs-deps demo docs check test test-interop test-asan fuzz bench bench-pcl clean

all: build

# The library (shared and static) and the CLI: `all` holds nothing else (the test programs are the
# target lidarsim_tests).
build:
	cmake -S . -B $(B) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(B) -j $(JOBS) --target lidarsim_cli lidarsim

install: build
	cmake --install $(B) --prefix $(PREFIX)

# dpkg-shlibdeps (dpkg-dev, with file) computes the package's Depends.
deb: build-deps build
	$(call install_missing,dpkg-dev file)
	cd $(B) && cpack -G DEB

# The .deb checked without installing it (a user's own lidarsim in /usr is never touched): apt-get
# --simulate says its Depends can be met here, then it is extracted into a throwaway folder, where
# its lidarsim scans the demo street and Debian's python3 imports its Python package (which must
# load the folder's liblidarsim.so); the folder is removed afterwards. tests/test_deb.py checks its
# fields and files the same way.
deb-check: deb
	@set -e; deb="$(abspath $(B))/lidarsim_$(VERSION)_$$(dpkg --print-architecture).deb"; \
	root=$$(mktemp -d "$${TMPDIR:-/tmp}/lidarsim-deb-check.XXXXXX"); trap 'rm -rf "$$root"' EXIT; \
	echo "deb-check: $$deb, extracted into $$root (not installed)"; \
	apt-get install --simulate "$$deb" >"$$root.apt" 2>&1 || { cat "$$root.apt" >&2; rm -f "$$root.apt"; \
	  echo "deb-check: apt-get cannot meet the package's Depends (above)" >&2; exit 1; }; rm -f "$$root.apt"; \
	dpkg-deb -x "$$deb" "$$root"; \
	lib=$$(dirname "$$(find "$$root/usr/lib" -name 'liblidarsim.so.*' -print -quit)"); \
	cd "$$root"; \
	LD_LIBRARY_PATH="$$lib" usr/bin/lidarsim --version; \
	LD_LIBRARY_PATH="$$lib" usr/bin/lidarsim scan usr/share/lidarsim/examples/street/street.yaml \
	  -o street.pcd --quiet; test -s street.pcd; \
	env -u LIDARSIM_LIBRARY PYTHONPATH="$$root/usr/lib/python3/dist-packages" $(PY) -c \
	  "import lidarsim, sys; print('python lidarsim', lidarsim.version(), 'from', lidarsim.library_path); \
	   sys.exit(not lidarsim.library_path.startswith(sys.argv[1]))" "$$root"; \
	echo "deb-check: ok"

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

build-deps:
	$(call install_missing,$(BUILD_PKGS))

demo-deps: build-deps
	$(call install_missing,$(DEMO_PKGS))

check-deps: demo-deps
	$(call install_missing,$(CHECK_PKGS))

# Everything `make test` needs (the name earlier versions used).
deps: check-deps interop-deps

interop-deps: check-deps
	$(call install_missing,$(INTEROP_PKGS))
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	  echo "node $$(node --version) and npm $$(npm --version) are there"; \
	else $(MAKE) --no-print-directory node-deps; fi

node-deps:
	$(call install_missing,$(NODE_PKGS))

fuzz-deps: build-deps
	$(call install_missing,$(FUZZ_PKGS))

pcl-deps: build-deps
	$(call install_missing,$(PCL_PKGS))

docs-deps:
	$(call install_missing,$(DOCS_PKGS))

demo: demo-deps build
	mkdir -p out/demo
	$(B)/lidarsim scan examples/street/street.yaml -o out/demo/street.pcd --stats
	$(B)/lidarsim render out/demo/street.pcd -o out/demo/street_bev.png --view bev --color label --extent 35

# The documentation site from docs/ (mkdocs.yml): build/site/, with no font, script or style from the
# network (--strict: a broken page link fails the build; the offline check reads the built HTML).
# Open it through a web server (python3 -m http.server -d $(B)/site): the search reads its index
# with fetch, which file:// pages may not do. tests/test_docs_site.py also reads it in Chromium.
docs: docs-deps
	$(PY) -m mkdocs build --strict --config-file mkdocs.yml --site-dir $(B)/site
	$(PY) tools/docs_site_check.py $(B)/site --static

# The project's whole suite; CI (.ci/run) runs it.
test: check test-asan test-interop deb-check

# The core suite: every test but the interoperability checks.
check: check-deps
	cmake -S . -B $(B) -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build $(B) -j $(JOBS) --target lidarsim_tests
	cd $(B) && ctest --output-on-failure -j $(JOBS) -LE interop

# Other projects' readers: PCL's ICP/GICP/NDT baselines (bench/pcl_register.cpp, the cw paper's
# experiment 2: tests/pcl_baselines.py) and its PLY/PCD readers, Open3D's PLY reader, the npm LAS
# and MCAP readers. In the Release build folder, with PCL's programs added.
test-interop: interop-deps
	cmake -S . -B $(B) -DCMAKE_BUILD_TYPE=Release -DLSIM_PCL_BENCH=ON >/dev/null
	cmake --build $(B) -j $(JOBS) --target lidarsim_tests pcl_register pcl_read_cloud
	cd $(B) && ctest --output-on-failure -j $(JOBS) -L interop

test-asan: check-deps
	cmake -S . -B $(BA) -DCMAKE_BUILD_TYPE=Debug -DLSIM_SANITIZE=ON -DLSIM_MPI=OFF >/dev/null
	cmake --build $(BA) -j $(JOBS) --target lidarsim_tests
	cd $(BA) && $(SAN_ENV) ctest --output-on-failure -j $(JOBS) -LE interop

# libFuzzer harnesses (fuzz/): every input lidarsim reads; corpora and crashes in build-fuzz/fuzz/.
fuzz: fuzz-deps
	cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DLSIM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build-fuzz -j $(JOBS)
	cmake -S . -B build-fuzz-ub -DCMAKE_C_COMPILER=clang -DLSIM_FUZZ=ON -DLSIM_FUZZ_ASAN=OFF \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build build-fuzz-ub -j $(JOBS) --target fuzz_mesh
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh build-fuzz

bench: build
	$(B)/lidarsim bench

# PCL's ICP, GICP and NDT (bench/pcl_register.cpp, the project's only C++) -> build-pcl/pcl_register.
bench-pcl: pcl-deps
	cmake -S . -B build-pcl -DCMAKE_BUILD_TYPE=Release -DLSIM_PCL_BENCH=ON >/dev/null
	cmake --build build-pcl -j $(JOBS) --target pcl_register

clean:
	rm -rf $(B) $(BA) build-fuzz build-fuzz-ub build-pcl out
