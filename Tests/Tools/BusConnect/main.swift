// restored-test-bus-connect ADDRESS MILLISECONDS: connects to the bus at
// ADDRESS with DBusConnection.connect(to:within:), in a process of its own
// (a bus that never answers holds up every libdbus connect of its process,
// so the test suite cannot try it in its own). Prints "connected" and exits
// 0, or prints the error and exits 3.
import Foundation
import RestoredDBus

let arguments = CommandLine.arguments
guard arguments.count == 3, let milliseconds = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: restored-test-bus-connect ADDRESS MILLISECONDS\n".utf8))
    exit(2)
}
do {
    let connection = try await DBusConnection.connect(to: .address(arguments[1]), within: .milliseconds(milliseconds))
    connection.close()
    print("connected")
    exit(0)
} catch {
    print("\(error)")
    exit(3)
}
