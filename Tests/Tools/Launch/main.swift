// restored-test-launch APP-ID SECONDS [DIRECTORY] -- COMMAND...: starts
// COMMAND with the plugin toolkit's AppLauncher, from a thread of a process
// of its own, as a plugin host calls a plugin (the test suite's shared
// threads, busy with other tests, would hold up the launch's own tasks).
// Prints "unit NAME PID", or "detached PID", and exits 0; prints the error
// and exits 3. The environment is the launcher's.
import Foundation
import PluginToolkit
import SystemPackage

let arguments = CommandLine.arguments
guard let separator = arguments.firstIndex(of: "--"), separator >= 3, separator <= 4, separator + 1 < arguments.count,
      let seconds = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: restored-test-launch APP-ID SECONDS [DIRECTORY] -- COMMAND...\n".utf8))
    exit(2)
}
let directory = separator == 4 ? FilePath(arguments[3]) : nil
do {
    let launched = try AppLauncher(appID: arguments[1], context: nil).launch(
        Array(arguments[(separator + 1)...]), in: directory, until: .now + .seconds(seconds)
    )
    if let unit = launched.unit {
        print("unit \(unit) \(launched.pid.map(String.init) ?? "-")")
    } else {
        print("detached \(launched.pid.map(String.init) ?? "-")")
    }
    exit(0)
} catch {
    print("\(error)")
    exit(3)
}
