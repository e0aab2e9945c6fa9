#!/usr/bin/env bash
# Start-up time and idle heap of the reminder service with the starter, and of the same application without it
# (BaselineApplication: same jar, starters, DataSource and Flyway migration; no Tickwheel). Alternates the two,
# ROUNDS times each (default 5), on an H2 file that already exists (a restart, the usual case), and prints medians
# with min-max. Start-up is Spring Boot's own "process running for" figure; the heap is what is used after a full GC
# once the application has idled IDLE_SECONDS (default 10).
#
#   mvn -B -q install -DskipTests -pl examples/reminder-service -am
#   examples/reminder-service/measure-startup.sh
set -euo pipefail
cd "$(dirname "$0")"
JAR=target/reminder-service.jar
ROUNDS="${ROUNDS:-5}"
IDLE_SECONDS="${IDLE_SECONDS:-10}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

run_once() { # $1: main class, then its arguments; prints "<startup seconds> <used heap KiB>"
  local main="$1" log="$WORK/app.log" pid
  shift
  (cd "$WORK" && exec java -Dloader.main="$main" -cp "$OLDPWD/$JAR" \
      org.springframework.boot.loader.launch.PropertiesLauncher --server.port=0 "$@" > "$log" 2>&1) &
  pid=$!
  for _ in $(seq 1 600); do
    grep -q "process running for" "$log" && break
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.1
  done
  local startup
  startup="$(grep -o 'process running for [0-9.]*' "$log" | grep -o '[0-9.]*$')"
  sleep "$IDLE_SECONDS"
  jcmd "$pid" GC.run > /dev/null
  local used
  used="$(jcmd "$pid" GC.heap_info | grep -oE 'total [0-9]+K, used [0-9]+K' | head -1 | grep -oE 'used [0-9]+' \
      | grep -oE '[0-9]+')"
  kill -TERM "$pid"; wait "$pid" || true
  echo "$startup $used"
}

summary() { # stdin: numbers; prints "median (min-max)"
  sort -g | awk '{v[NR]=$1} END {m = (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2;
      printf "%s (%s-%s)", m, v[1], v[NR]}'
}

run_once dev.tickwheel.example.reminders.ReminderApplication > /dev/null   # creates the H2 file and the schemas
: > "$WORK/with"; : > "$WORK/without"
for _ in $(seq 1 "$ROUNDS"); do
  run_once dev.tickwheel.example.reminders.ReminderApplication >> "$WORK/with"
  # Without Tickwheel its health contributor is not there for the readiness group to include.
  run_once dev.tickwheel.example.baseline.BaselineApplication \
      --management.endpoint.health.group.readiness.include=readinessState >> "$WORK/without"
done
echo "rounds: $ROUNDS, idle before the heap reading: ${IDLE_SECONDS}s, $(nproc) cores, $(java -version 2>&1 | head -1)"
echo "start-up s, with the starter:    $(cut -d' ' -f1 "$WORK/with" | summary)"
echo "start-up s, without the starter: $(cut -d' ' -f1 "$WORK/without" | summary)"
echo "heap KiB after GC, with:         $(cut -d' ' -f2 "$WORK/with" | summary)"
echo "heap KiB after GC, without:      $(cut -d' ' -f2 "$WORK/without" | summary)"
