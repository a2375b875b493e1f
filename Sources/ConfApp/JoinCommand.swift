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
            let pinText = context.invocation.argument("PIN") ?? ""
            guard let r = RoomID(roomText) else { throw context.usage("'\(roomText)' is not a room id: it is eight digits like 4821-7734") }
            guard let p = Pin(pinText) else { throw context.usage("the pin must be six digits, as conf host printed it") }
            guard let a = try context.rendezvousAddress() else {
                throw context.usage("no rendezvous given: pass --server with the address that conf host printed, or set CONF_SERVER")
            }
            (room, pin) = (r, p)
            client = try context.rendezvousClient(a)
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
