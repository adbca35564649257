// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "TodoServer",
    platforms: [
        // Hummingbird 2 needs macOS 14.
        .macOS(.v14)
    ],
    products: [
        .library(name: "TodoServer", targets: ["TodoServer"]),
        .executable(name: "todo-server", targets: ["todo-server"]),
    ],
    dependencies: [
        .package(name: "Weft", path: "../.."),
        .package(name: "WeftHummingbird", path: "../../Integrations/WeftHummingbird"),
        .package(name: "WeftServiceLifecycle", path: "../../Integrations/WeftServiceLifecycle"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        // Already dependencies of Hummingbird; named because the code imports their modules directly.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    ],
    targets: [
        .target(
            name: "TodoServer",
            dependencies: [
                .product(name: "Weft", package: "Weft"),
                .product(name: "WeftHummingbird", package: "WeftHummingbird"),
                .product(name: "WeftServiceLifecycle", package: "WeftServiceLifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "todo-server",
            dependencies: [
                "TodoServer",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "TodoServerTests",
            dependencies: [
                "TodoServer",
                .product(name: "Weft", package: "Weft"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
