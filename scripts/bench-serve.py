#!/usr/bin/env python3
"""The preview keeping up: scripts/bench-serve.py N [PROJECT_BASE...]

Generates N records (examples/gen.rs, seed 42; the project of scripts/bench.toml) in a
project under each PROJECT_BASE (default: /dev/shm, a tmpfs, and /var/tmp on the root
disk), and for each place the preview's private folder can live, measures in one run:

  url       seconds from starting `folio serve --port 0` to its first stdout line (the
            URL, printed once the first build is done), median of STARTS (3) starts
  rebuilt   seconds from rewriting data/attractions.json (one record's text changed) to
            the `rebuilt` line, median of EDITS (5) edits; the wait includes the watcher's
            250 ms for a burst of changes to settle
  loaded    the same while CLIENTS (4) keep-alive clients fetch random pages as fast as
            they can, with their request rate, the count of answers that were not 200,
            and the slowest answer
  reads     the rebuilt time while another process reads the data file and folio.toml
            every 50 ms (an editor, an indexer, `git status`); the reads stop after
            READS_FOR (10) s, so a watcher that waits for silence shows as about 10 s

The preview's folder is placed through TMPDIR: unset (folio's default: /dev/shm when it is
a tmpfs with room), the root disk (/var/tmp), and beside the project.
"""
import http.client, os, random, shutil, statistics, subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
BASES = sys.argv[2:] or ["/dev/shm", "/var/tmp"]
STARTS, EDITS, CLIENTS, READS_FOR = 3, 5, 4, 10.0
subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path", f"{ROOT}/Cargo.toml",
                "--bin", "folio", "--example", "gen"], check=True)
FOLIO = f"{ROOT}/target/release/folio"


def fs_type(path):
    return subprocess.run(["df", "--output=fstype", path], capture_output=True, text=True).stdout.split()[-1]


def start(project, env):
    t0 = time.monotonic()
    p = subprocess.Popen([FOLIO, "serve", "--port", "0"], cwd=project, env=env,
                         stdout=subprocess.PIPE, text=True)
    url = p.stdout.readline().strip()
    took = time.monotonic() - t0
    folder = p.stdout.readline().rsplit("built in ", 1)[-1].split(";")[0]
    if not url.startswith("http"):
        sys.exit(f"folio serve did not start in {project}")
    return p, url, took, folder


def edits(p, data, count):
    original = open(data, "rb").read()
    times = []
    for k in range(count):
        changed = original.replace(b'"en":"', f'"en":"edit {k} '.encode(), 1)
        t1 = time.monotonic()
        with open(data, "wb") as f:
            f.write(changed)
        while "rebuilt" not in (line := p.stdout.readline()):
            if not line:
                sys.exit("folio serve stopped")
        times.append(time.monotonic() - t1)
        time.sleep(0.3)
    with open(data, "wb") as f:
        f.write(original)
    while "rebuilt" not in p.stdout.readline():
        pass
    return statistics.median(times)


def loaded(p, url, data):
    port = int(url.split(":")[2].split("/")[0])
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
    rebuilt = edits(p, data, EDITS)
    rate = (stats["n"] - n0) / (time.monotonic() - t0)
    stop.set()
    for t in threads:
        t.join()
    return rebuilt, rate, stats["bad"], stats["max"]


def reads(p, project, data):
    stop = threading.Event()

    def reader():
        t0 = time.monotonic()
        while not stop.is_set() and time.monotonic() - t0 < READS_FOR:
            for path in (data, f"{project}/folio.toml"):
                with open(path, "rb") as f:
                    f.read()
            time.sleep(0.05)

    times = []
    for _ in range(EDITS):
        stop.clear()
        t = threading.Thread(target=reader)
        t.start()
        time.sleep(0.1)
        times.append(edits(p, data, 1))
        stop.set()
        t.join()
    return statistics.median(times)


print(f"folio serve: N={N}, {CLIENTS} clients for the loaded column")
print("| project on | preview folder | url s | rebuilt s | rebuilt s, loaded | req/s | not 200 | slowest ms | rebuilt s, reads |")
print("|---|---|---|---|---|---|---|---|---|")
for base in BASES:
    project = os.path.join(base, f"folio-serve-bench-{N}")
    shutil.rmtree(project, ignore_errors=True)
    os.makedirs(f"{project}/data")
    subprocess.run([f"{ROOT}/target/release/examples/gen", str(N), f"{project}/data/attractions.json", "42"], check=True)
    shutil.copy(f"{ROOT}/scripts/bench.toml", f"{project}/folio.toml")
    data = f"{project}/data/attractions.json"
    beside = os.path.join(base, f"folio-serve-bench-{N}-tmp")
    os.makedirs(beside, exist_ok=True)
    for label, tmpdir in (("default", None), ("root disk, TMPDIR=/var/tmp", "/var/tmp"), ("beside the project", beside)):
        env = dict(os.environ)
        env.pop("TMPDIR", None)
        if tmpdir:
            env["TMPDIR"] = tmpdir
        urls = []
        for _ in range(STARTS):
            p, url, took, folder = start(project, env)
            urls.append(took)
            p.terminate()
            p.wait()
        p, url, took, folder = start(project, env)
        rebuilt = edits(p, data, EDITS)
        rebuilt_loaded, rate, bad, slowest = loaded(p, url, data)
        rebuilt_reads = reads(p, project, data)
        p.terminate()
        p.wait()
        parent = os.path.dirname(os.path.dirname(folder))
        where = f"{label}: {parent} ({fs_type(parent)})"
        print(f"| {base} ({fs_type(project)}) | {where} | {statistics.median(urls):.2f} | {rebuilt:.2f} | "
              f"{rebuilt_loaded:.2f} | {rate:.0f} | {bad} | {slowest * 1000:.0f} | {rebuilt_reads:.2f} |", flush=True)
    shutil.rmtree(project, ignore_errors=True)
    shutil.rmtree(beside, ignore_errors=True)
