internal import COpenSSL
import ConfWire

/// Four words both ends of a link derive from their DTLS session, whichever end computes them.
/// Read aloud, they tell the participants that they share one session: a party in the middle (a
/// rendezvous that swapped the fingerprints) runs two sessions, whose words differ.
///
/// Words = SHA-256("conf-sas-v2" | 32 bytes exported from the DTLS session with the label
/// `exporterLabel`, RFC 5705), first four bytes, each indexing `words` (256 entries). The exported
/// secret depends on both ends' randoms and the key exchange, so an attacker cannot search for
/// matching words offline: each try is a live handshake, with a 2^-32 chance (docs/SECURITY.md).
public enum ShortAuthenticationString {
    /// The RFC 5705 exporter label of the SAS secret ("EXTRACTOR-" labels are for private use).
    public static let exporterLabel = "EXTRACTOR-conf-sas-v2"

    public static func words(exported secret: [UInt8]) -> [String] {
        let input = Array("conf-sas-v2".utf8) + secret
        var digest = [UInt8](repeating: 0, count: 32)
        _ = input.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        return digest.prefix(4).map { words[Int($0)] }
    }

    /// 256 short, distinct, easy-to-say English words.
    static let words: [String] = """
    acid acorn actor adult aisle alarm album alert alley alpha amber angle ankle anvil apple april \
    apron arena arrow aspen atlas attic audio aunt avoid award bacon badge bagel baker bamboo banjo \
    barn basil basin beach beard beast bench berry bike birch bison blade blanket bloom blues board \
    boat bonus boots bottle brain brass bread brick bride brook broom brush bucket buddy buffalo \
    bugle cabin cable cactus camel candy canoe canvas carbon cargo carpet carrot castle cedar cello \
    chalk cherry chess chief chimney cider circus citrus clam clock cloud clover coast cobra cocoa \
    comet copper coral cotton cousin coyote crab crane crater cricket crown cube cupid curry daisy \
    dance delta denim desert diesel dinner disco doctor dolphin domino donkey dragon dream drum \
    eagle earth easel echo eclipse elbow elder ember engine falcon fancy farmer feather fender ferry \
    fiddle finch flame flute forest fossil fox frog frost fudge galaxy garden garlic gecko giant \
    ginger glacier globe goat gold gorilla grape gravel guitar hammer harbor hazel helmet hero honey \
    horse hotel husky igloo iris island ivory jacket jaguar jelly jewel jungle kayak kettle kiwi \
    koala ladder lagoon lake lemon lens lily lion lizard llama lobster locket lotus lunar magnet \
    mango maple marble meadow melon metal mint mirror monkey moose motor mountain muffin nectar \
    needle nickel noodle oasis ocean olive onion opera orange orbit otter owl oyster paddle panda \
    paper parrot peach pebble pepper piano pickle pilot pine pirate planet plum pocket polar pony \
    poppy potato prism puzzle quartz quilt rabbit radar radio raven reef rhino ribbon river robin
    """.split(separator: " ").map(String.init)
}
