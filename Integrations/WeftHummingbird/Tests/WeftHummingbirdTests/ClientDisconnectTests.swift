import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import Weft
import WeftHummingbird

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A client that hangs up in the middle of a long streamed answer: the request's scope must end then, not when
/// the body would have finished, and only once.
@Suite struct ClientDisconnectTests {
    @Test func aClientThatHangsUpMidStreamEndsTheRequestsScope() async throws {
        let tornDown = Counter()
        let chunksWritten = Counter()
        let app = application(container: journalContainer(tornDown: tornDown)) { router in
            router.get("slow") { _, context in
                _ = try await context.require(RequestJournal.self)
                return Response(
                    status: .ok,
                    body: ResponseBody { writer in
                        // Twenty seconds of chunks, far longer than the test waits.
                        for _ in 0..<2_000 {
                            try await writer.write(ByteBuffer(string: String(repeating: "x", count: 1_024)))
                            chunksWritten.increment()
                            try await Task.sleep(nanoseconds: 10_000_000)
                        }
                        try await writer.finish(nil)
                    })
            }
        }

        try await app.test(.live) { client in
            let port = try #require(client.port)
            try requestThenHangUp(port: port, path: "/slow")
            #expect(await eventually { tornDown.value == 1 })
            #expect(chunksWritten.value < 1_000)
            try await Task.sleep(nanoseconds: 50_000_000)
            #expect(tornDown.value == 1)
        }
    }

    /// Sends a GET over a plain socket, waits for the first bytes of the answer, and closes the connection.
    private func requestThenHangUp(port: Int, path: String) throws {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        let request = Array("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        try #require(send(descriptor, request, request.count, 0) == request.count)
        var buffer = [UInt8](repeating: 0, count: 512)
        try #require(recv(descriptor, &buffer, buffer.count, 0) > 0)
    }
}
