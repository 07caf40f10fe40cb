#!/usr/bin/env python3
"""The preview's start and reloads: scripts/bench-serve.py N [FOLIO ...]

Generates N records (examples/gen.rs, seed 42; the project of scripts/bench.toml: four
languages, sizes 10/20/50/100) in a project on /dev/shm (a tmpfs: the figures are CPU and
memory, not the disk), and measures each folio binary given (default: this tree's
release build; pass an older build to compare, the ratios are to the first binary), in
one run (RUNS and EDITS in the environment change the counts below):

  check s      wall time of `folio check` (the same load and validation), median of RUNS
  check MB     its peak RSS
  answer s     from starting `folio serve --port 0` to the first 200 of
               GET /api/en/attractions, median of RUNS
  serve MB     serve's peak RSS by then
  shm MB       what serve put in /dev/shm by then (new entries named folio*)
  tmp MB       the same in $TMPDIR or /tmp (where a preview that found no room in memory
               was built, before this version)
  reload s     rewriting the data file with one record changed to serve's `reloaded`
               (`rebuilt` before) line, median of EDITS; includes the watcher's 250 ms
  loaded       the same while CLIENTS keep-alive clients fetch random pages as fast as they
               can: the reload time, requests/s, answers that were not 200, the slowest

Run it with nothing else heavy on the machine; read the ratios between binaries.
"""
import http.client, os, queue, random, shutil, statistics, subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(sys.argv[1]) if len(sys.argv) > 1 else 50000
BINARIES = [os.path.abspath(b) for b in sys.argv[2:]]
RUNS, EDITS, CLIENTS = int(os.environ.get("RUNS", 3)), int(os.environ.get("EDITS", 5)), 4
TMP = os.environ.get("TMPDIR") or "/tmp"
if not BINARIES:
    subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path", f"{ROOT}/Cargo.toml",
                    "--bin", "folio"], check=True)
    BINARIES = [f"{ROOT}/target/release/folio"]
GEN = f"{ROOT}/target/release/examples/gen"
if not os.path.exists(GEN):
    subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path", f"{ROOT}/Cargo.toml",
                    "--example", "gen"], check=True)


def entries(parent):
    """The folio* entries of `parent` (where a preview could put a folder), as paths."""
    if not os.path.isdir(parent):
        return set()
    return {os.path.join(parent, e) for e in os.listdir(parent) if "folio" in e}


def du(paths):
    if not paths:
        return 0
    out = subprocess.run(["du", "-sbc", *paths], capture_output=True, text=True).stdout
    return int(out.strip().splitlines()[-1].split()[0])


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def check(folio, project):
    t0 = time.monotonic()
    p = subprocess.Popen([folio, "check"], cwd=project, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    took = time.monotonic() - t0
    if status != 0:
        sys.exit(f"folio check failed in {project}")
    return took, usage.ru_maxrss / 1024


def port_of(url):
    return int(url.split(":")[2].split("/")[0])


def start(folio, project):
    """serve started; its first line read; the seconds to its first 200, and what it holds."""
    before = entries("/dev/shm") | entries(TMP)
    t0 = time.monotonic()
    p = subprocess.Popen([folio, "serve", "--port", "0"], cwd=project, stdout=subprocess.PIPE,
                         stderr=open(f"{project}/serve.log", "a"), text=True)
    url = p.stdout.readline().strip()
    if not url.startswith("http"):
        sys.exit(f"{folio} serve did not start in {project}")
    port = port_of(url)
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            conn.request("GET", "/api/en/attractions")
            r = conn.getresponse()
            r.read()
            if r.status == 200:
                break
        except OSError:
            time.sleep(0.005)
    took = time.monotonic() - t0
    rss = peak_rss_mb(p.pid)
    shm = du(sorted(entries("/dev/shm") - before)) / 2**20
    disk = du(sorted(entries(TMP) - before)) / 2**20
    p.lines = queue.Queue()  # serve's later stdout lines, as they come

    def read():
        for line in p.stdout:
            p.lines.put(line)
        p.lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    return p, url, took, rss, shm, disk


def reloaded(p, within=120):
    """Waits for serve's next reload line."""
    deadline = time.monotonic() + within
    while True:
        try:
            line = p.lines.get(timeout=max(0.001, deadline - time.monotonic()))
        except queue.Empty:
            line = None
        if not line:
            log = open(f"{PROJECT}/serve.log").read()[-3000:]
            sys.exit(f"no reload line from folio serve within {within} s; its stderr:\n{log}")
        if "reloaded" in line or "rebuilt" in line:
            return


def edits(p, data, count):
    original = open(data, "rb").read()
    times = []
    for k in range(count):
        changed = original.replace(b'"en":"', f'"en":"edit {k} '.encode(), 1)
        t1 = time.monotonic()
        with open(data, "wb") as f:
            f.write(changed)
        reloaded(p)
        times.append(time.monotonic() - t1)
        time.sleep(0.3)
    with open(data, "wb") as f:
        f.write(original)
    reloaded(p)
    return statistics.median(times)


def loaded(p, url, data):
    port = port_of(url)
    stop, lock = threading.Event(), threading.Lock()
    stats = {"n": 0, "bad": 0, "max": 0.0}

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port)
        while not stop.is_set():
            t = time.monotonic()
            conn.request("GET", f"/api/en/attractions?page={random.randint(1, N // 10)}&per_page=10")
            r = conn.getresponse()
            r.read()
            dt = time.monotonic() - t
            with lock:
                stats["n"] += 1
                stats["max"] = max(stats["max"], dt)
                stats["bad"] += r.status != 200

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for t in threads:
        t.start()
    time.sleep(1)
    t0, n0 = time.monotonic(), stats["n"]
    took = edits(p, data, EDITS)
    rate = (stats["n"] - n0) / (time.monotonic() - t0)
    stop.set()
    for t in threads:
        t.join()
    return took, rate, stats["bad"], stats["max"]


project = PROJECT = f"/dev/shm/folio-bench-serve-{N}"
shutil.rmtree(project, ignore_errors=True)
os.makedirs(f"{project}/data")
subprocess.run([GEN, str(N), f"{project}/data/attractions.json", "42"], check=True)
shutil.copy(f"{ROOT}/scripts/bench.toml", f"{project}/folio.toml")
data = f"{project}/data/attractions.json"
print(f"folio serve, N={N} ({os.path.getsize(data) / 2**20:.0f} MB of JSON), {CLIENTS} clients for the loaded columns")
print("| folio | check s | check MB | answer s | serve MB | shm MB | tmp MB | reload s | reload s, loaded | req/s | not 200 | slowest ms |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
try:
    for folio in BINARIES:
        checks = [check(folio, project) for _ in range(RUNS)]
        answers = []
        for _ in range(RUNS):
            p, url, took, rss, shm, disk = start(folio, project)
            answers.append((took, rss, shm, disk))
            p.terminate()
            p.wait()
        p, url, *_ = start(folio, project)
        reload = edits(p, data, EDITS)
        reload_loaded, rate, bad, slowest = loaded(p, url, data)
        p.terminate()
        p.wait()
        check_s = statistics.median(c[0] for c in checks)
        check_mb = max(c[1] for c in checks)
        answer_s = statistics.median(a[0] for a in answers)
        print(f"| {folio} | {check_s:.2f} | {check_mb:.0f} | {answer_s:.2f} | {max(a[1] for a in answers):.0f} | "
              f"{max(a[2] for a in answers):.0f} | {max(a[3] for a in answers):.0f} | {reload:.2f} | {reload_loaded:.2f} | {rate:.0f} | {bad} | "
              f"{slowest * 1000:.0f} |", flush=True)
finally:
    shutil.rmtree(project, ignore_errors=True)
