/// The 256 words of conf's short authentication strings (`ShortAuthenticationString`, and the
/// call page's, which gets them from the rendezvous): short, distinct, easy to say in English.
/// A byte picks one; their order is part of the protocol and never changes.
public enum SASWords {
    public static let list: [String] = """
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
