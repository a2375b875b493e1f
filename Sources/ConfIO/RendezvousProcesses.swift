import ConfCore
#if canImport(Glibc)
import Glibc
#endif

/// `conf rendezvous --processes P`: where one process runs out of descriptors, P processes share
/// the port. The first (the one started) runs its workers, then starts the others as copies of
/// itself told their index and the port in the environment, with every worker's courier ends
/// (`RendezvousCourierEnds`) as inherited descriptors; it restarts one that dies (its rooms are
/// gone, as an instance's would be) and stops them all when it stops. They die with it.
///
/// Threading: the event loop thread only.
public final class RendezvousProcesses {
    /// Set by the first process for the others (not for people: `--processes` is).
    public static let indexVariable = "CONF_RENDEZVOUS_PROCESS"
    public static let portVariable = "CONF_RENDEZVOUS_PORT"

    /// This process's index and the port to share, when it was started as another's copy.
    public static func inherited(_ environment: [String: String]) -> (index: Int, port: UInt16)? {
        guard let index = environment[indexVariable].flatMap({ Int($0) }), index > 0,
              let port = environment[portVariable].flatMap({ UInt16($0) }), port > 0 else { return nil }
        return (index, port)
    }

    private let count: Int
    private let port: UInt16
    private let couriers: RendezvousCourierEnds
    private let log: (String) -> Void
    /// Ours, given to the copies with their index and the port added.
    private let environment: [String: String]
    private var children: [Int: pid_t] = [:]
    private var watch: Timer?
    private var stopping = false

    public init(count: Int, port: UInt16, couriers: RendezvousCourierEnds, environment: [String: String], loop: EventLoop,
                log: @escaping (String) -> Void) {
        self.count = count
        self.port = port
        self.couriers = couriers
        self.environment = environment
        self.log = log
        for index in 1..<count { start(index) }
        watch = loop.schedule(every: .seconds(1)) { [weak self] in
            self?.restartTheDead()
            return self != nil
        }
    }

    private func start(_ index: Int) {
        var environment = environment
        environment[Self.indexVariable] = String(index)
        environment[Self.portVariable] = String(port)
        environment[RendezvousCourierEnds.environmentVariable] = couriers.environmentValue
        let arguments = CommandLine.arguments
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        // The couriers pass to the copy as they are (a dup2 onto itself clears close-on-exec).
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in couriers.descriptors { posix_spawn_file_actions_adddup2(&actions, fd, fd) }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/proc/self/exe", &actions, nil, &argv, &envp)
        guard result == 0 else { return log("cannot start process \(index): \(String(cString: strerror(result)))") }
        children[index] = pid
    }

    private func restartTheDead() {
        guard !stopping else { return }
        for (index, pid) in children {
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { continue }
            // The wait status: a signal number in the low 7 bits, else the exit code above them.
            let how = status & 0x7F == 0 ? "exited with code \((status >> 8) & 0xFF)" : "was killed by signal \(status & 0x7F)"
            log("process \(index) \(how); its rooms are gone; starting it again")
            start(index)
        }
    }

    /// SIGTERM to every other process; `done` once they have all ended (or after 5 s).
    public func stop(done: @escaping () -> Void, loop: EventLoop) {
        stopping = true
        watch?.cancel()
        for pid in children.values { kill(pid, SIGTERM) }
        var waited = 0
        loop.schedule(every: .milliseconds(50)) { [self] in
            children = children.filter { waitpid($0.value, nil, WNOHANG) == 0 }
            waited += 1
            if children.isEmpty || waited > 100 {
                for pid in children.values { kill(pid, SIGKILL) }
                done()
                return false
            }
            return true
        }
    }
}
