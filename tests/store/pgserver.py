"""A throwaway PostgreSQL server for the store's tests and benchmark (tests/store/, scripts/bench-store).

Debian's postgresql binaries, initdb in a temporary directory as an unprivileged user (the server
refuses to run as root), listening on a random port on 127.0.0.1 only, trust authentication for
the one user it makes. start() returns (url, stop) or raises Unavailable with the reason.
"""
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile


class Unavailable(Exception):
    pass


def _bindir():
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2].split(".")[0]))
    for d in reversed(dirs):
        if os.path.exists(os.path.join(d, "initdb")):
            return d
    raise Unavailable("no PostgreSQL server binaries (Debian's postgresql package) in /usr/lib/postgresql")


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(tmp=None):
    bindir = _bindir()
    base = tempfile.mkdtemp(prefix="ct-pg.", dir=tmp)
    data, sock, log = os.path.join(base, "data"), os.path.join(base, "sock"), os.path.join(base, "log")
    os.mkdir(sock)
    preexec = None
    if os.geteuid() == 0:
        # The server will not run as root: the postgres user when there is one, else nobody.
        for name in ("postgres", "nobody"):
            try:
                pw = pwd.getpwnam(name)
                break
            except KeyError:
                pw = None
        if pw is None:
            raise Unavailable("running as root and no unprivileged user (postgres, nobody) to run the server")
        for d in (base, sock):
            os.chown(d, pw.pw_uid, pw.pw_gid)
        uid, gid = pw.pw_uid, pw.pw_gid

        def preexec():
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)

    def run(*args):
        r = subprocess.run(args, preexec_fn=preexec, capture_output=True, text=True, cwd=base, timeout=120)
        if r.returncode != 0:
            raise Unavailable("%s failed: %s" % (os.path.basename(args[0]), (r.stderr or r.stdout).strip()[-400:]))
        return r

    port = _free_port()
    run(os.path.join(bindir, "initdb"), "-D", data, "-A", "trust", "-U", "ct", "-E", "UTF8", "--no-sync")
    opts = "-c listen_addresses=127.0.0.1 -p %d -k %s -c max_connections=50" % (port, sock)
    run(os.path.join(bindir, "pg_ctl"), "-D", data, "-o", opts, "-l", log, "-w", "-t", "60", "start")

    def stop():
        subprocess.run([os.path.join(bindir, "pg_ctl"), "-D", data, "-m", "fast", "-w", "stop"],
                       preexec_fn=preexec, capture_output=True, cwd=base, timeout=120)
        shutil.rmtree(base, ignore_errors=True)

    try:
        run(os.path.join(bindir, "createdb"), "-h", "127.0.0.1", "-p", str(port), "-U", "ct", "ct")
    except Unavailable:
        stop()
        raise
    return "postgresql://ct@127.0.0.1:%d/ct" % port, stop


def psql(url, sql):
    """Runs SQL with psql (the server's own client), returns its rows as lists of strings."""
    bindir = _bindir()
    r = subprocess.run([os.path.join(bindir, "psql"), "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1",
                        "-d", url, "-c", sql], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError("psql: " + r.stderr)
    return [l.split("\t") for l in r.stdout.splitlines() if l]
