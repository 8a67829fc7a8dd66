# spraylab quick start: `make demo` and `make test` (README.md).
# `make` alone builds; binaries land under build/ (meson's default places).
BUILD   ?= build
# WERROR=1 (CI) or WERROR=0 switches warnings-as-errors; unset, the build keeps what it has, so
# `make demo` after `make test WERROR=1` does not reconfigure and rebuild everything.
WERROR  ?=
MESON_OPTS := $(if $(WERROR),-Dwerror=$(if $(filter 1,$(WERROR)),true,false),)

.PHONY: all build setup demo test install format clean

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_OPTS)

build: $(BUILD)/build.ninja
	@$(if $(MESON_OPTS),meson configure $(BUILD) $(MESON_OPTS) >/dev/null,true)
	ninja -C $(BUILD)

# The demo (conf/examples/demo.yaml, docs/runner.md): a 16-host fat tree, seven load balancers
# side by side, in virtual time and on the in-process DPDK fabric (at its default link rate).
# Each run prints its table; results and plots land in $(DEMO_OUT)-virtual/ and
# $(DEMO_OUT)-inprocess/: beside results/demo/, where the README's next command,
# `spraylab run conf/examples/demo.yaml`, writes (inside it, that run would find a folder it may
# not replace).
# DEMO_TIMEOUT bounds every variant's wall time and DEMO_MAX_CLOCK its virtual time (the workload
# needs about 0.1 ms of it), so the demo ends, and its files stay small, even if a variant stalls.
DEMO_ALGORITHMS ?= ecmp,rps,rr,jsq,ofan,pofan,psp
DEMO_OUT        ?= results/demo
DEMO_TIMEOUT    ?= 10
DEMO_MAX_CLOCK  ?= 20ms
DEMO_RUN = ./$(BUILD)/fabric/spraylab run conf/examples/demo.yaml --algorithms $(DEMO_ALGORITHMS) \
           --timeout $(DEMO_TIMEOUT)

demo: setup build
	@rc=0; \
	$(DEMO_RUN) --mode virtual --max-clock $(DEMO_MAX_CLOCK) --out $(DEMO_OUT)-virtual || rc=1; \
	$(DEMO_RUN) --mode inprocess --out $(DEMO_OUT)-inprocess || rc=1; \
	exit $$rc

test: setup build
	meson test -C $(BUILD) --print-errorlogs --num-processes 2

# spraylab, spraylab-switch, spraylab-gen on PATH (PREFIX, default /usr/local) with the XDP
# objects and the experiment files they read; DESTDIR stages it elsewhere.
PREFIX  ?= /usr/local
install: build
	meson configure $(BUILD) --prefix $(PREFIX) >/dev/null
	meson install -C $(BUILD) --no-rebuild $(if $(DESTDIR),--destdir $(DESTDIR),)

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
