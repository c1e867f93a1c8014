# The two commands a new machine needs: `make test` and `make run`.
# Each installs what is missing (scripts/bootstrap), then builds.
SHELL := /bin/bash
.DEFAULT_GOAL := test

# A copy of vips.pc without the flags SwiftPM warns about (written by scripts/bootstrap).
export PKG_CONFIG_PATH := $(CURDIR)/.build-pkgconfig$(if $(PKG_CONFIG_PATH),:$(PKG_CONFIG_PATH))

.PHONY: bootstrap build test test-hostile docs bench run fleet-test orc-stress clean

bootstrap:
	@scripts/bootstrap

build: bootstrap
	swift build

# A crash in the suite prints every thread's stack, without registers or the list of loaded
# images, which make the report long and slow in a process of hundreds of threads. A run
# that has not ended in an hour has hung: it is stopped, so the failure and its output show.
TEST_TIME_LIMIT ?= 3600
test: bootstrap
	SWIFT_BACKTRACE=enable=yes,interactive=no,registers=none,images=none timeout --kill-after=30 $(TEST_TIME_LIMIT) swift test

# The slow-origin burst of the hostile-peer suite, heavier than in `make test`: 2000
# abandoned requests, 400 normal misses answered through it (docs/development.md).
test-hostile: bootstrap
	WEBIMAGE_HP1_BURST=2000 WEBIMAGE_HP1_MISSES=400 swift test --filter SlowOriginBurstTests

# The image proxy on 127.0.0.1:8080 (release build), cache under $XDG_CACHE_HOME/webimage,
# else .build-cache/ in this checkout. local:///… sources come from Samples/, so the example
# URL it prints works offline; the playground page (--playground) is at http://127.0.0.1:8080/.
# Extra flags: make run ARGS="--key … --salt …".
RUN_CACHE_DIR ?= $(if $(XDG_CACHE_HOME),$(XDG_CACHE_HOME)/webimage,$(CURDIR)/.build-cache)
# The allocator needs nothing here: webimage runs glibc malloc with four arenas unless the
# environment sets MALLOC_ARENA_MAX (deploy/README.md "Memory" has the figures), e.g.
# make run RUN_ENV=MALLOC_ARENA_MAX=16.
RUN_ENV ?=
run: bootstrap
	swift build -c release --product webimage
	$(RUN_ENV) "$$(swift build -c release --show-bin-path)/webimage" serve --bind 127.0.0.1 --port 8080 --cache-dir "$(RUN_CACHE_DIR)" --local-filesystem-root "$(CURDIR)/Samples" --playground $(ARGS)

# N proxies behind nginx (deploy/) and an origin on loopback addresses: affinity, kill -9 and
# rolling restarts under load, disk hits after a restart (Tests/fleet/fleet-test.sh). Builds the
# release binary (WEBIMAGE=… uses another) and installs nginx, wrk, curl and mate-backgrounds
# with apt-get; not part of `make test`.
fleet-test: bootstrap
	Tests/fleet/fleet-test.sh

# libvips' orc vector code on many threads for minutes: a C program with and without
# WebImage's orc code lock (Tests/orc-stress/orc-stress.sh: ROUNDS, SECONDS_PER_RUN,
# THREADS, ASAN=1), then the test suite's own orc test with 40 times its rounds. Not part
# of `make test`.
orc-stress: bootstrap
	Tests/orc-stress/orc-stress.sh
	WEBIMAGE_ORC_STRESS_ROUNDS=$${WEBIMAGE_ORC_STRESS_ROUNDS:-500} swift test --filter orcProgramsOnManyThreads

# The DocC catalogs (Sources/WebImage/WebImage.docc, Sources/WebImageServer/WebImageServer.docc)
# as .doccarchive folders under .build/docs, with swift-docc-plugin; any warning fails it.
# `swift package --disable-sandbox preview-documentation --target WebImage` serves one locally.
DOCS_DIR ?= $(CURDIR)/.build/docs
docs: bootstrap
	mkdir -p "$(DOCS_DIR)"
	for target in WebImage WebImageServer; do \
	  swift package --allow-writing-to-directory "$(DOCS_DIR)" generate-documentation --target $$target \
	    --output-path "$(DOCS_DIR)/$$target.doccarchive" --warnings-as-errors || exit 1; \
	done

bench: bootstrap
	cd Benchmarks && swift package --allow-writing-to-package-directory benchmark

clean:
	swift package clean
	rm -rf .build-pkgconfig
