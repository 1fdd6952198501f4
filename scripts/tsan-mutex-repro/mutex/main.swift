import Foundation
import Synchronization
let box = Mutex<[Int]>([])
let threads = (0..<4).map { i in Thread { for j in 0..<10_000 { box.withLock { $0.append(i &* 10_000 &+ j) } } } }
threads.forEach { $0.start() }
while box.withLock({ $0.count }) < 40_000 {}
