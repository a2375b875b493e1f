import ConfMedia
import Foundation
import Testing

/// A real V4L2 camera: Debian's kernel booted under qemu with the `vivid` test driver
/// (../shared/recipes/vivid-vm). Inside the VM, `conf devices` lists /dev/video0 as the default
/// camera, `conf host` sends it with no --video-source (auto picks it) and `conf join` records it;
/// then `camera next` on the host's stdin switches to /dev/video1 and the recording goes on. The
/// recording must be VP8 at the room's resolution (or the small encoding's) and decodable throughout.
@Suite(.enabled(if: VividVM.available, "needs qemu-system-x86, linux-image-amd64 and busybox-static (scripts/install-deps --test)"))
struct CameraTests {
    @Test func aVividCameraIsSentAndRecorded() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("conf-vivid-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: out) }
        let conf = ConfProcess.executable.path
        // The guest sees this machine's filesystem read-only, and `out` read-write.
        let script = """
        #!/bin/sh
        OUTDIR=${OUTDIR:?}
        modprobe vivid n_devs=2 node_types=0x1,0x1 || exit 3
        ip link set lo up
        mkdir -p $OUTDIR/run
        # No dconf in the VM (its shared memory cannot be mapped there): GLib's memory backend.
        export GSETTINGS_BACKEND=memory XDG_RUNTIME_DIR=$OUTDIR/run HOME=$OUTDIR XDG_CONFIG_HOME=$OUTDIR/none
        export CONF_AUDIO_SOURCE=silence CONF_AUDIO_SINK=none
        \(conf) devices --json > $OUTDIR/devices.json 2> $OUTDIR/devices.err
        # The host reads its commands from a file that grows (`echo ... >> commands`).
        : > $OUTDIR/commands
        tail -f $OUTDIR/commands | \(conf) host --listen 127.0.0.1:7373 --no-tls --port-mapping off --as cam --resolution 240p --duration 260 --json --stats \\
            > $OUTDIR/host.json 2> $OUTDIR/host.err &
        HOST=$!
        i=0; while [ $i -lt 150 ] && ! grep -q join_command $OUTDIR/host.json 2>/dev/null; do sleep 0.2; i=$((i+1)); done
        ROOM=$(sed -n 's/.*"room":"\\([0-9-]*\\)".*"pin":"\\([0-9]*\\)".*/\\1 \\2/p' $OUTDIR/host.json | head -1)
        # The viewer records until its IVF header counts five frames (rewritten each second), for
        # up to 200 s: under software emulation on a busy machine the guest's pace varies tenfold.
        \(conf) join $ROOM --server ws://127.0.0.1:7373 --port-mapping off --as viewer --record $OUTDIR --duration 230 --json \\
            > $OUTDIR/join.json 2> $OUTDIR/join.err &
        JOIN=$!
        i=0
        frames() { n=$(od -An -tu4 -j24 -N4 $OUTDIR/cam.ivf 2>/dev/null | tr -d ' '); echo "${n:-0}"; }
        while [ $i -lt 1000 ] && [ "$(frames)" -lt 5 ]; do sleep 0.2; i=$((i+1)); done
        # Five frames from the first camera; then five more from the second.
        echo "camera next" >> $OUTDIR/commands
        i=0
        while [ $i -lt 300 ] && ! grep -q camera-switched $OUTDIR/host.json; do sleep 0.2; i=$((i+1)); done
        before=$(frames)
        echo "$before" > $OUTDIR/before-switch
        i=0
        while [ $i -lt 500 ] && [ "$(frames)" -lt $((before + 5)) ]; do sleep 0.2; i=$((i+1)); done
        kill -INT $JOIN
        wait $JOIN
        echo "join exited $?" >> $OUTDIR/join.err
        kill -INT $HOST
        wait $HOST
        pkill -f "tail -f $OUTDIR/commands"
        wait
        """
        let guest = out.appendingPathComponent("guest.sh")
        try script.write(to: guest, atomically: true, encoding: .utf8)
        chmod(guest.path, 0o755)
        let vm = Process()
        vm.executableURL = URL(fileURLWithPath: "/bin/bash")
        vm.arguments = [VividVM.runner, guest.path, out.path]
        vm.environment = ProcessInfo.processInfo.environment.merging(["SMP": "2", "XDG_CACHE_HOME": VividVM.cache]) { $1 }
        vm.standardOutput = FileHandle.nullDevice
        vm.standardError = FileHandle.nullDevice
        try vm.run()
        #expect(ConfProcess.waitUntil(timeout: .seconds(300)) { !vm.isRunning }, "the VM did not finish")
        if vm.isRunning { kill(vm.processIdentifier, SIGKILL) }
        let joinLog = (try? String(contentsOf: out.appendingPathComponent("join.err"), encoding: .utf8)) ?? ""
        let hostEvents = ((try? String(contentsOf: out.appendingPathComponent("host.json"), encoding: .utf8)) ?? "").split(separator: "\n")
        // What congestion control saw, for a failure: pauses, resumes and the link's figures.
        let linkHistory = hostEvents.filter { line in
            ["\"video-paused\"", "\"video-resumed\"", "\"link-stats\"", "\"peer-connected\""].contains { line.contains($0) }
        }.joined(separator: "\n")
        #expect(joinLog.contains("join exited 0"), "\(joinLog)\n\(linkHistory)")
        // No sound server in the VM: the cameras are listed all the same, before the error.
        let devicesLine = (try? String(contentsOf: out.appendingPathComponent("devices.json"), encoding: .utf8))?.split(separator: "\n").first
        let devices = try devicesLine.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let camera = (devices?["cameras"] as? [[String: Any]])?.first
        #expect(camera?["path"] as? String == "/dev/video0" && camera?["default"] as? Bool == true, "\(String(describing: devicesLine))")
        #expect((devices?["cameras"] as? [[String: Any]])?.map { $0["path"] as? String } == ["/dev/video0", "/dev/video1"])
        let formats = Set(((camera?["modes"] as? [[String: Any]]) ?? []).compactMap { $0["format"] as? String })
        #expect(formats.isSuperset(of: ["YUYV", "NV12", "YU12"]), "vivid's formats: \(formats)")
        let hostLog = (try? String(contentsOf: out.appendingPathComponent("host.err"), encoding: .utf8)) ?? ""
        #expect(hostLog.contains("sending video from") && hostLog.contains("/dev/video0"), "\(hostLog)")
        // The 240p room (320x240) from a raw mode that covers it at the rate asked for.
        #expect(hostLog.contains("(/dev/video0, YUYV ") && hostLog.contains(" at 30 fps)"), "\(hostLog)")
        let switched = hostEvents.first { $0.contains("\"camera-switched\"") }
        #expect(switched?.contains("\"device\":\"/dev/video1\"") == true, "\(hostEvents.prefix(6))\n\(hostEvents.suffix(5))\n\(hostLog)")
        let before = (try? String(contentsOf: out.appendingPathComponent("before-switch"), encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let recording = try VideoTests.frames(out.appendingPathComponent("cam.ivf").path)
        #expect(before.map { recording.frames.count >= $0 + 5 } == true, "\(recording.frames.count) frames, \(String(describing: before)) before the switch")
        #expect(recording.frames.count >= 5, "only \(recording.frames.count) frames in 200 s")
        let decoder = try VP8Decoder()
        var decoded = 0
        for frame in recording.frames {
            guard let picture = decoder.decode(frame) else { continue }
            // The room's 320x240, or the small encoding's half of it: on the emulated machine
            // the link's estimate may be too low for the full picture for a while.
            #expect((picture.width, picture.height) == (320, 240) || (picture.width, picture.height) == (160, 120),
                    "\(picture.width)x\(picture.height)")
            decoded += 1
        }
        #expect(decoded == recording.frames.count)
    }
}

enum VividVM {
    static let runner = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/recipes/vivid-vm/run_vm.sh").path
    static let cache = FileManager.default.temporaryDirectory.appendingPathComponent("conf-vivid-cache").path

    static let available: Bool = {
        let files = FileManager.default
        let kernels = (try? files.contentsOfDirectory(atPath: "/boot").filter { $0.hasPrefix("vmlinuz-") }) ?? []
        return files.isExecutableFile(atPath: "/usr/bin/qemu-system-x86_64") && !kernels.isEmpty
            && files.isExecutableFile(atPath: "/bin/busybox") && files.fileExists(atPath: runner)
    }()
}
