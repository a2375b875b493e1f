import ConfCall
import ConfCore
import ConfDriver
import ConfIO
import ConfWire

/// `conf join ROOM PIN`.
struct JoinCommand {
    let context: CommandContext

    init(_ context: CommandContext) { self.context = context }

    func run() -> Int32 {
        let reporter = context.reporter()
        let room: RoomID, pin: Pin, client: RendezvousClient, settings: ParticipantRun.Settings
        do throws(CommandFailure) {
            let roomText = context.invocation.argument("ROOM") ?? ""
            if InvitationLink.looksLikeLink(roomText) {
                guard context.invocation.argument("PIN") == nil else {
                    throw context.usage("give either the link or a room id and pin, not both: the link holds the pin")
                }
                let link: InvitationLink
                switch InvitationLink.parse(roomText) {
                case .success(let parsed): link = parsed
                case .failure(let problem): throw context.usage(problem.description)
                }
                // A configured server is for joins by id; one typed beside a link is a mistake.
                if context.invocation.value("server") != nil {
                    throw context.usage("--server and a link: the link names its rendezvous; leave out --server")
                }
                (room, pin) = (link.room, link.pin)
                if !link.server.secure && !link.server.isLoopback {
                    Console.err("conf: warning: the link is plain http://: the pin, names and call set-up cross the network in clear")
                }
                // The link's certificate is the one to trust, whatever --fingerprint says.
                client = try context.rendezvousClient(link.server, pinned: link.fingerprint)
            } else {
                let pinText = context.invocation.argument("PIN") ?? ""
                guard let r = RoomID(roomText) else { throw context.usage("'\(roomText)' is not a room id: it is eight digits like 4821-7734, or give the whole link conf host printed") }
                guard !pinText.isEmpty else { throw context.usage("missing PIN after the room id: give the six digits conf host printed, or the whole link instead of both") }
                guard let p = Pin(pinText) else { throw context.usage("the pin must be six digits, as conf host printed it") }
                guard let a = try context.rendezvousAddress() else {
                    throw context.usage("no rendezvous given: pass --server with the address that conf host printed, or set CONF_SERVER")
                }
                (room, pin) = (r, p)
                client = try context.rendezvousClient(a)
            }
            settings = try ParticipantRun.Settings(context)
        } catch {
            reporter.failure(error)
            return error.exitCode.rawValue
        }

        DescriptorLimit.raiseToHard()  // Before any socket: a soft limit of 1024 is reached under load.
        let loop = EventLoop()
        ParticipantRun.clearLeftoverMappings(context, portMapping: settings.call.portMapping, loop: loop)
        var exitCode = ExitCode.ok
        var call: CallDriver?
        let session = ParticipantSession(loop: loop, client: client, reporter: reporter, clock: SystemClock(), random: KernelRandom(),
                                         room: room, pin: pin, name: settings.name, duration: settings.duration,
                                         serverNamedBy: context.origin("server")) { result in
            call?.stopViews()  // the last lines belong on the normal screen
            exitCode = ParticipantRun.finish(result, reporter: reporter)
            if let call { call.close { loop.quit() } } else { loop.quit() }
        }
        do throws(CommandFailure) {
            call = try CallSetup.attach(to: session, loop: loop, reporter: reporter, options: settings.call)
        } catch {
            reporter.failure(error)
            return error.exitCode.rawValue
        }
        ParticipantRun.leaveOnSignals(loop) { session.leave(reason: .signal) }
        session.start()
        loop.run()
        withExtendedLifetime(call) {}
        return exitCode.rawValue
    }
}
