// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "WeftHummingbird",
    platforms: [
        // Hummingbird 2 needs macOS 14.
        .macOS(.v14)
    ],
    products: [
        .library(name: "WeftHummingbird", targets: ["WeftHummingbird"])
    ],
    dependencies: [
        .package(name: "Weft", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "WeftHummingbird",
            dependencies: [
                .product(name: "Weft", package: "Weft"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WeftHummingbirdTests",
            dependencies: [
                "WeftHummingbird",
                .product(name: "Weft", package: "Weft"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
