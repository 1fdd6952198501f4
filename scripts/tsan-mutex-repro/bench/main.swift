import Foundation
import Synchronization

// Cost of one inbox operation (lock, append a command, unlock; every 64th empties the inbox) with
// Synchronization.Mutex and with CurlBridge's PosixLock.
//   bench [mutex|posix] [rounds]   one lock, uncontended: for instruction counts under callgrind
//   bench                          both, wall-clock ns/op, one thread and two threads
let mutex = Mutex<[Int]>([])
let posix = PosixLock<[Int]>([])
@Sendable func mutexRound(_ i: Int) { mutex.withLock { $0.append(i); if $0.count == 64 { $0.removeAll(keepingCapacity: true) } } }
@Sendable func posixRound(_ i: Int) { posix.withLock { $0.append(i); if $0.count == 64 { $0.removeAll(keepingCapacity: true) } } }

func nanoseconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start)
}

func contended(_ rounds: Int, _ round: @escaping @Sendable (Int) -> Void) -> Double {
    nanoseconds {
        let group = DispatchGroup()
        for _ in 0..<2 {
            group.enter()
            Thread { for i in 0..<(rounds / 2) { round(i) }; group.leave() }.start()
        }
        group.wait()
    }
}

let arguments = CommandLine.arguments
if arguments.count > 1 {
    let rounds = arguments.count > 2 ? Int(arguments[2])! : 1_000_000
    let round = arguments[1] == "mutex" ? mutexRound : posixRound
    for i in 0..<rounds { round(i) }
} else {
    let rounds = 10_000_000
    for pass in 1...3 {
        let mutexAlone = nanoseconds { for i in 0..<rounds { mutexRound(i) } }
        let posixAlone = nanoseconds { for i in 0..<rounds { posixRound(i) } }
        let mutexShared = contended(rounds, mutexRound)
        let posixShared = contended(rounds, posixRound)
        print(String(format: "pass %d  one thread ns/op: Mutex %.1f  PosixLock %.1f   two threads ns/op: Mutex %.1f  PosixLock %.1f",
                     pass, mutexAlone / Double(rounds), posixAlone / Double(rounds), mutexShared / Double(rounds), posixShared / Double(rounds)))
    }
}
