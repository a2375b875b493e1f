import ConfApp
import ConfCore
#if canImport(Glibc)
import Glibc
#endif

ProcessExit.exit(ConfMain.run(Array(CommandLine.arguments.dropFirst())))
