import ConfApp
#if canImport(Glibc)
import Glibc
#endif

exit(ConfMain.run(Array(CommandLine.arguments.dropFirst())))
