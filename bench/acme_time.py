#!/usr/bin/env python3
"""How long `--certificate acme` takes to a certificate browsers would trust, against pebble
(Let's Encrypt's test server, its validation sleep off) in a network namespace: `conf rendezvous`
at 11.0.0.2:443 from its start to its `# certificate: acme` line, with a fresh state directory
(a new account, an order, tls-alpn-01, finalize, the chain) and then with the kept certificate
(a restart). Root and network namespaces needed (as the tests); pebble and openssl installed.

    bench/acme_time.py CONF RUNS

Prints one line per run (seconds), then the medians.
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

NS = f"bacme{os.getpid() % 10000}"


def sh(*args, **kwargs):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kwargs)


def first_certificate_line(conf, state, pebble_ca):
    start = time.perf_counter()
    proc = subprocess.Popen(["ip", "netns", "exec", NS, conf, "rendezvous", "--listen", "11.0.0.2:443", "--certificate", "acme",
                             "--acme-directory", "https://11.0.0.1:14000/dir", "--acme-ca", pebble_ca, "--state-dir", state, "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        for line in proc.stdout:
            if line.startswith("# certificate:"):
                if not line.startswith("# certificate: acme"):
                    raise SystemExit(f"no certificate: {line.strip()}")
                return time.perf_counter() - start
        raise SystemExit("conf rendezvous ended without a certificate line")
    finally:
        proc.terminate()
        proc.wait()


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    conf, runs = os.path.abspath(sys.argv[1]), int(sys.argv[2])
    work = tempfile.mkdtemp(prefix="conf-acme-bench-")
    pebble = None
    try:
        sh("ip", "netns", "add", NS)
        sh("ip", "-n", NS, "link", "set", "lo", "up")
        for address in ("11.0.0.1/32", "11.0.0.2/32"):
            sh("ip", "-n", NS, "addr", "add", address, "dev", "lo")
        p = lambda name: os.path.join(work, name)
        with open(p("ext.cnf"), "w") as f:
            f.write("subjectAltName=IP:11.0.0.1\n")
        sh("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", p("ca.key"),
           "-out", p("ca.pem"), "-days", "2", "-subj", "/CN=bench CA")
        sh("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", p("pebble.key"),
           "-out", p("pebble.csr"), "-subj", "/CN=pebble")
        sh("openssl", "x509", "-req", "-in", p("pebble.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"), "-CAcreateserial",
           "-out", p("pebble.pem"), "-days", "2", "-extfile", p("ext.cnf"))
        with open(p("pebble.json"), "w") as f:
            f.write('{"pebble": {"listenAddress": "11.0.0.1:14000", "managementListenAddress": "11.0.0.1:15000", '
                    f'"certificate": "{p("pebble.pem")}", "privateKey": "{p("pebble.key")}", "httpPort": 80, "tlsPort": 443, '
                    '"ocspResponderURL": "", "externalAccountBindingRequired": false}}')
        log = open(p("pebble.log"), "w")
        pebble = subprocess.Popen(["ip", "netns", "exec", NS, "pebble", "-config", p("pebble.json")], stdout=log, stderr=log,
                                  env=dict(os.environ, PEBBLE_VA_NOSLEEP="1"))
        deadline = time.time() + 15
        while "Listening on: 11.0.0.1:14000" not in open(p("pebble.log")).read():
            if time.time() > deadline:
                raise SystemExit("pebble did not start")
            time.sleep(0.05)
        print("  new      kept   (seconds from start to '# certificate: acme')")
        fresh, kept = [], []
        for run in range(runs):
            state = p(f"state{run}")
            fresh.append(first_certificate_line(conf, state, p("ca.pem")))
            kept.append(first_certificate_line(conf, state, p("ca.pem")))
            print(f"{fresh[-1]:6.2f}  {kept[-1]:6.2f}")
        print(f"median  {statistics.median(fresh):6.2f}  {statistics.median(kept):6.2f}")
    finally:
        if pebble:
            pebble.kill()
        subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
