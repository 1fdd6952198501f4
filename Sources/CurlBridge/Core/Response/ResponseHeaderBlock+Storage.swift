#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes

extension ResponseHeaderBlock {
    /// The heap object of a block: a header — the mutex, the byte count, the room, the fields once
    /// parsed — and the field lines' bytes after it, in the same allocation.
    ///
    /// Written only by its ``ResponseHeadRecorder``, on the transport's loop, until the recorder
    /// hands it out in a block; from then on only read (the recorder copies it to write again).
    /// The lines are then immutable, and the fields, parsed only from a block, are reached only
    /// under the mutex.
    ///
    /// Who sees the lines: the responses of the head they came from, and nothing else. A storage
    /// belongs to one transfer's recorder and one head — a next head, such as the one after a
    /// `401` curl answered, gets new storage — and is never pooled or reused across transfers
    /// (`ResponseHeadRecorderTests` tries to cross both lines).
    final class Storage: ManagedBuffer<Storage.Header, UInt8> {
        /// What precedes the bytes.
        struct Header {
            /// Guards ``fields``; reached only through ``Storage/mutex(in:)``, at its address in
            /// the object, which never moves.
            var mutex = pthread_mutex_t()
            /// How many bytes the lines fill.
            var count = 0
            /// How many bytes fit: the room asked for, which the allocation may exceed (kept here:
            /// asking the allocator is a call per append).
            let capacity: Int
            /// The fields, once parsed.
            var fields: HTTPFields?
        }

        /// An empty storage with room for `capacity` bytes, its mutex initialised.
        static func make(capacity: Int) -> Storage {
            let made = create(minimumCapacity: capacity) { _ in Header(capacity: capacity) }
            let storage = unsafeDowncast(made, to: Storage.self)
            storage.withUnsafeMutablePointerToHeader { header in initializePosixMutex(Self.mutex(in: header)) }
            return storage
        }

        deinit {
            withUnsafeMutablePointerToHeader { header in _ = pthread_mutex_destroy(Self.mutex(in: header)) }
        }

        /// The address of the header's mutex (not of a temporary copy, which `&header.pointee.mutex`
        /// is not promised to avoid).
        private static func mutex(in header: UnsafeMutablePointer<Header>) -> UnsafeMutablePointer<pthread_mutex_t> {
            header.pointer(to: \.mutex)!
        }

        /// How many bytes the lines fill.
        var count: Int {
            withUnsafeMutablePointerToHeader { $0.pointee.count }
        }

        /// Appends `bytes` if they fit; returns whether they did (the lines are unchanged if not).
        func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
            withUnsafeMutablePointers { header, elements in
                guard header.pointee.count + bytes.count <= header.pointee.capacity else { return false }
                assert(header.pointee.fields == nil, "a header block's storage written after its fields were parsed")
                if let source = bytes.baseAddress, !bytes.isEmpty {
                    UnsafeMutableRawPointer(elements + header.pointee.count).copyMemory(from: source, byteCount: bytes.count)
                }
                header.pointee.count += bytes.count
                return true
            }
        }

        /// Forgets the lines, keeping the room (the recorder's next head).
        func removeAll() {
            withUnsafeMutablePointerToHeader { header in
                header.pointee.count = 0
                assert(header.pointee.fields == nil, "a header block's storage written after its fields were parsed")
            }
        }

        /// A storage holding the same lines, with room for `capacity` bytes.
        func copy(capacity: Int) -> Storage {
            let copy = Storage.make(capacity: capacity)
            let copied = withUnsafeMutablePointers { header, elements in
                copy.append(UnsafeRawBufferPointer(start: elements, count: header.pointee.count))
            }
            precondition(copied, "a header block's copy is smaller than its lines")
            return copy
        }

        /// The fields, made by `parse` from the lines the first time and kept.
        func fields(parsing parse: (UnsafeRawBufferPointer) -> HTTPFields) -> HTTPFields {
            withUnsafeMutablePointers { header, elements in
                let mutex = Self.mutex(in: header)
                pthread_mutex_lock(mutex)
                defer { pthread_mutex_unlock(mutex) }
                if let fields = header.pointee.fields { return fields }
                let fields = parse(UnsafeRawBufferPointer(start: elements, count: header.pointee.count))
                header.pointee.fields = fields
                return fields
            }
        }
    }
}
