# What the scripts in this folder (and Tests/fleet/fleet-test.sh) share: stopping what
# they started, starting the origin, waiting for a server, sampling the proxy's memory,
# and writing figures. Source it after setting WORK and KEEP; it reads NGINX_PID,
# PROXY_PID and SAMPLER_PID, which the scripts set as they start things.

NGINX_PID=""
PROXY_PID=""
SAMPLER_PID=""

# Stops the sampler, the proxy (SIGTERM: it drains) and nginx, then
# removes $WORK unless KEEP=1. Runs on exit, however the script ends.
cleanup() {
    [ -n "$SAMPLER_PID" ] && kill "$SAMPLER_PID" 2>/dev/null || true
    [ -n "$PROXY_PID" ] && kill -TERM "$PROXY_PID" 2>/dev/null && wait "$PROXY_PID" 2>/dev/null || true
    [ -n "$NGINX_PID" ] && kill -QUIT "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null || true
    if [ "$KEEP" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# Starts nginx as the proxy's origin: 127.0.0.1:$1 serving $WORK/www (access log off,
# sendfile, keep-alive without a request limit) and, when $2 is given, its stub_status on
# 127.0.0.1:$2 at /status. Sets NGINX_PID; its errors go to $WORK/nginx-error.log.
start_origin() {
    local port=$1 status_port=${2:-}
    local status_server=""
    [ -n "$status_port" ] && status_server="server { listen 127.0.0.1:$status_port; location = /status { stub_status; } }"
    mkdir -p "$WORK/nginx-temp"
    cat > "$WORK/nginx.conf" <<EOF
worker_processes auto;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    types { image/jpeg jpg; }
    client_body_temp_path $WORK/nginx-temp/body;
    proxy_temp_path $WORK/nginx-temp/proxy;
    fastcgi_temp_path $WORK/nginx-temp/fastcgi;
    uwsgi_temp_path $WORK/nginx-temp/uwsgi;
    scgi_temp_path $WORK/nginx-temp/scgi;
    server {
        listen 127.0.0.1:$port;
        root $WORK/www;
    }
    $status_server
}
EOF
    nginx -e "$WORK/nginx-error.log" -p "$WORK" -c "$WORK/nginx.conf" -g 'daemon off;' &
    NGINX_PID=$!
}

# Waits up to 10 s for URL $1 to answer 2xx; otherwise says so (with nginx's last errors)
# and exits.
wait_for() {
    for _ in $(seq 1 100); do curl -fs -o /dev/null --max-time 5 "$1" && return 0; sleep 0.1; done
    echo "$(basename "$0"): $1 does not answer" >&2; tail -3 "$WORK/nginx-error.log" >&2 2>/dev/null; exit 1
}

# The pids of process $1 and of all its descendants, one a line.
tree_pids() {
    ps -e -o pid=,ppid= | awk -v root="$1" '
        { parent[$1] = $2 }
        END { for (pid in parent) { p = pid; while (p != root && (p in parent) && p + 0 > 1) p = parent[p]; if (p == root) print pid } }'
}
# A field of /proc/<pid>/status in kB (VmRSS, VmHWM), summed over process $2 and its
# descendants; 0 once they are gone.
tree_status_kb() {
    local pid
    for pid in $(tree_pids "$2"); do cat "/proc/$pid/status" 2>/dev/null || true; done |
        awk -v field="$1:" '$1 == field { sum += $2 } END { print sum + 0 }'
}

# The proxy's resident memory while wrk runs: VmRSS sampled into file $1 every 0.2 s
# (until stop_sampler, or 10 minutes), and the kernel's own peak, VmHWM. With "tree" as
# $2, each sample is the sum over $PROXY_PID and its descendants (a server that forks
# workers; the list of processes is made again when one of them is gone), and
# tree_status_kb VmHWM "$PROXY_PID" sums their peaks.
start_sampler() {
    local out=$1 tree=${2:-}
    if [ -n "$tree" ]; then
        ( pids=$(tree_pids "$PROXY_PID")
          for _ in $(seq 1 3000); do
              sum=0
              for pid in $pids; do
                  # Read with builtins only: a sample forks nothing on a busy machine.
                  exec 4< "/proc/$pid/status" 2>/dev/null || { pids=$(tree_pids "$PROXY_PID"); continue 2; }
                  while read -r key value _ <&4; do [ "$key" != VmRSS: ] || sum=$(( sum + value )); done
                  exec 4<&-
              done
              [ "$sum" -gt 0 ] || break
              echo "$sum"
              sleep 0.2
          done > "$out" ) &
    else
        ( for _ in $(seq 1 3000); do
              awk '/^VmRSS/ { print $2 }' "/proc/$PROXY_PID/status" 2>/dev/null || break
              sleep 0.2
          done > "$out" ) &
    fi
    SAMPLER_PID=$!
}
stop_sampler() {
    kill "$SAMPLER_PID" 2>/dev/null || true
    wait "$SAMPLER_PID" 2>/dev/null || true
    SAMPLER_PID=""
}
# hwm_kb [PID]: the kernel's peak RSS of process PID (default: the proxy), in kB.
hwm_kb() { awk '/^VmHWM/ { print $2 }' "/proc/${1:-$PROXY_PID}/status"; }

# write_figure ID FIGURE VALUE [RATIO [BASELINE [TARGET [MET]]]]: one figure as JSON in
# Benchmarks/results/ID.json (FIGURES_DIR: another folder), through tools/figure, which
# adds this machine and today's date; the command is $COMMAND, else the script's path.
# Benchmarks/tools/results then renders RESULTS.md from the files.
write_figure() {
    python3 "$(dirname "${BASH_SOURCE[0]}")/../tools/figure" "$1" --figure "$2" --value "$3" --ratio "${4:-}" \
        --baseline "${5:-}" --target "${6:-}" --met "${7:-}" --command "${COMMAND:-Benchmarks/proxy/$(basename "$0")}"
}
# figure_met VALUE OP BOUND: "yes" when VALUE OP BOUND holds (OP: >=, <=, <), else "no".
figure_met() { awk -v v="$1" -v b="$3" -v op="$2" 'BEGIN { ok = (op == ">=" ? v >= b : op == "<=" ? v <= b : v < b); print (ok ? "yes" : "no") }'; }

# cpu_ms PID: the user + system CPU time process PID has used so far, in milliseconds.
CLK_TCK=$(getconf CLK_TCK)
cpu_ms() { awk -v hz="$CLK_TCK" '{ printf "%d", ($14 + $15) * 1000 / hz }' "/proc/$1/stat"; }

# median: the median of the numbers on standard input, one a line, to 3 decimals (0 for none).
median() {
    sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else printf "%.3f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
