// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "WeftLogging",
    platforms: [
        .iOS(.v13),
        .macOS(.v10_15),
        .tvOS(.v13),
        .watchOS(.v6),
    ],
    products: [
        .library(name: "WeftLogging", targets: ["WeftLogging"])
    ],
    dependencies: [
        .package(name: "Weft", path: "../.."),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "WeftLogging",
            dependencies: [
                .product(name: "Weft", package: "Weft"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WeftLoggingTests",
            dependencies: [
                "WeftLogging",
                .product(name: "Weft", package: "Weft"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
