// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "WeftServiceLifecycle",
    platforms: [
        // swift-service-lifecycle's ServiceGroup needs macOS 10.15 and its peers.
        .iOS(.v13),
        .macOS(.v10_15),
        .tvOS(.v13),
        .watchOS(.v6),
    ],
    products: [
        .library(name: "WeftServiceLifecycle", targets: ["WeftServiceLifecycle"])
    ],
    dependencies: [
        .package(name: "Weft", path: "../.."),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "WeftServiceLifecycle",
            dependencies: [
                .product(name: "Weft", package: "Weft"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WeftServiceLifecycleTests",
            dependencies: [
                "WeftServiceLifecycle",
                .product(name: "Weft", package: "Weft"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
