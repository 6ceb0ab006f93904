# ModelMigration: the two quick-start commands are `make demo` and `make test`.
SWIFT ?= swift
BUILD_FLAGS ?=
BIN = .build/debug
MIGRATE = $(BIN)/migrate
DEMO = demo
TRIALS ?= 200

.PHONY: all build demo test test-all api lint format install crashtest faulttest hostiletest bench bench-quick bench-load bench-fleet bench-rewrite clean

all: build

build:
	$(SWIFT) build $(BUILD_FLAGS)

# The whole story on the bundled example (Models/Contacts, Migrations/Contacts).
# `status` exits 3 when a migration is needed: that is the expected answer here.
demo: build
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	@echo "== 1. validate and compile the example model"
	$(MIGRATE) validate
	$(MIGRATE) compile --summary -o $(DEMO)/Contacts.compiled.json
	@echo
	@echo "== 2. a version-1 store with sample data (3000 people with posts)"
	$(BIN)/DemoData $(DEMO) 3000
	$(MIGRATE) create $(DEMO)/Contacts.sqlite --version 1
	$(MIGRATE) load $(DEMO)/Contacts.sqlite Person $(DEMO)/people.jsonl
	$(MIGRATE) load $(DEMO)/Contacts.sqlite Post $(DEMO)/posts.jsonl
	$(MIGRATE) dump $(DEMO)/Contacts.sqlite Person --limit 4
	@echo
	@echo "== 3. status (exit 3: migration needed), plan, apply"
	$(MIGRATE) status $(DEMO)/Contacts.sqlite; test $$? -eq 3
	$(MIGRATE) plan $(DEMO)/Contacts.sqlite
	$(MIGRATE) apply $(DEMO)/Contacts.sqlite --backup $(DEMO)/Contacts.v1-backup.sqlite --verify
	@echo
	@echo "== 4. inspect, status (exit 0: current), and a few migrated people"
	$(MIGRATE) inspect $(DEMO)/Contacts.sqlite
	$(MIGRATE) status $(DEMO)/Contacts.sqlite
	$(MIGRATE) dump $(DEMO)/Contacts.sqlite Person --limit 4
	@echo
	@echo "== 5. a fetch with a Core Data predicate (Docs/Predicates.md)"
	$(MIGRATE) fetch $(DEMO)/Contacts.sqlite Person --where "age >= 30 AND posts.@count > 0" --sort -age,lastName --limit 5 --properties "firstName,lastName,age,livesIn.name,posts.@count"

# The slow trials (SIGKILL and signal trials, resource limits, the full
# randomized layout trial) are opt-in: `make test-all`, or MIGRATE_SLOW_TESTS=1 as CI sets.
test:
	$(SWIFT) build $(BUILD_FLAGS)
	$(SWIFT) test $(BUILD_FLAGS)
	bash Scripts/public_api.sh
	python3 Scripts/doc_numbers.py

# Fails when a library module's public API differs from Docs/PublicAPI.txt (read
# from the last build's modules; `bash Scripts/public_api.sh --update` after a
# deliberate change, explained in Docs/PublicAPI.md).
api: build
	bash Scripts/public_api.sh

test-all:
	$(SWIFT) build $(BUILD_FLAGS)
	MIGRATE_SLOW_TESTS=1 $(SWIFT) test $(BUILD_FLAGS)
	bash Scripts/public_api.sh
	python3 Scripts/doc_numbers.py

# No Swift line over 120 columns (the lineLength of .swift-format, which holds the
# formatter settings: 4-space indents, the code's existing line breaks kept); no
# function over 80 lines without a `// Long:` reason or an entry in
# Scripts/long_functions_allowlist.txt (which only shrinks); no trap that input or the
# environment can reach (try!, fatalError, FileHandle's legacy calls, force-unwrapped
# parses: Scripts/trap_lint.py, whose allowlist only shrinks).
FORMATTED = Sources Tests Migrations Benchmarks Examples/DeployPackage/Sources Examples/DeployPackage/Tests Package.swift

lint:
	$(SWIFT) format lint --configuration .swift-format --strict --recursive --parallel $(FORMATTED)
	bash Scripts/check-line-length.sh
	python3 Scripts/long_functions.py --self-test
	python3 Scripts/long_functions.py
	python3 Scripts/trap_lint.py --self-test
	python3 Scripts/trap_lint.py

# Formats every Swift file with the repository's .swift-format (what `make lint` checks).
format:
	$(SWIFT) format format --configuration .swift-format --in-place --recursive --parallel $(FORMATTED)

# A release-built `migrate` for real stores: `make install PREFIX=/usr/local`
# (the debug build of the quick start is several times slower on large stores).
PREFIX ?= /usr/local
install:
	$(SWIFT) build -c release --product migrate
	mkdir -p $(PREFIX)/bin
	install -m 755 .build/release/migrate $(PREFIX)/bin/migrate

# Benchmarks, release-built: 10 k, 1 M and 10 M people (`make bench-quick`: 10 k and 1 M).
RELEASE = .build/release
bench:
	$(SWIFT) build -c release --product migrate
	$(SWIFT) build -c release --product Benchmarks
	$(RELEASE)/Benchmarks --migrate $(RELEASE)/migrate

bench-quick:
	$(SWIFT) build -c release --product migrate
	$(SWIFT) build -c release --product Benchmarks
	$(RELEASE)/Benchmarks --quick --migrate $(RELEASE)/migrate

# load and dump alone: four line shapes and books in ordered folders against
# Python's json + sqlite3 loops, at LOAD_OBJECTS objects (default 1 M; `make bench`
# and `bench-quick` run them too, at each size up to 1 M).
LOAD_OBJECTS ?= 1000000
bench-load:
	$(SWIFT) build -c release --product migrate
	$(SWIFT) build -c release --product Benchmarks
	$(RELEASE)/Benchmarks --only load --sizes $(LOAD_OBJECTS) --migrate $(RELEASE)/migrate

# One rebuild at REWRITE_ROWS people (default 10 M), its audit included, against the
# hand-written SQL and against the audit by a scan of its own (a few minutes).
REWRITE_ROWS ?= 10000000
bench-rewrite:
	$(SWIFT) build -c release --product migrate
	$(SWIFT) build -c release --product Benchmarks
	$(RELEASE)/Benchmarks --rewrite-rows $(REWRITE_ROWS) --migrate $(RELEASE)/migrate

# Fleets: 1,000 stores of 10 k items by a shell loop of `migrate apply`, by
# `fleet apply --jobs 1` and by `--jobs` = cores (STORES=, ROWS= to change).
bench-fleet:
	$(SWIFT) build -c release --product migrate
	bash Scripts/bench-fleet.sh $(RELEASE)/migrate

# Hundreds of `migrate apply` runs killed with SIGKILL at random moments.
crashtest: build
	bash Scripts/crashtest.sh $(TRIALS)

# The other faults, each TRIALS times: kills during --backup, a full disk (a small
# file-size limit), a reader holding the store against --timeout.
faulttest: build
	MODE=backup bash Scripts/crashtest.sh $(TRIALS)
	MODE=diskfull bash Scripts/crashtest.sh $(TRIALS)
	MODE=reader bash Scripts/crashtest.sh $(TRIALS)

# Randomized models, stores and hostilities (corruption, swapped entity numbers,
# dangling references, full disks, kills, readers, FIFOs…): TRIALS trials.
hostiletest: build
	python3 Scripts/hostile.py $(TRIALS) --seed $${SEED:-1} --migrate $(MIGRATE)
	python3 Scripts/mutate_models.py $(TRIALS) --seed $${SEED:-1} --migrate $(MIGRATE)
	python3 Scripts/hostile_commands.py $(TRIALS) --seed $${SEED:-1} --migrate $(MIGRATE)
	python3 Scripts/predicate_diff.py $(TRIALS) --seed $${SEED:-1} --migrate $(MIGRATE)

clean:
	rm -rf .build $(DEMO)
