from m3_memory.tags import back_translate, find_tags, is_equivalence, replace_tags


def test_whole_tag_replacement_does_not_touch_longer_ids():
    text = "<face_1> talks to <face_12> and <face_1>; <voice_1> answers <voice_10>."
    out = replace_tags(text, lambda k, i: {("face", 1): "<character_0>", ("voice", 1): "<character_0>"}.get((k, i)))
    assert out == "<character_0> talks to <face_12> and <character_0>; <character_0> answers <voice_10>."


def test_find_tags_order_and_dedup():
    assert find_tags("<voice_3> <face_1> <voice_3> <character_2> face_9 <face_x>") == [
        ("voice", 3), ("face", 1), ("character", 2)]


def test_equivalence_detection_is_prefix_and_case_insensitive():
    assert is_equivalence("Equivalence: <face_1>, <voice_2>")
    assert is_equivalence("  equivalence: <face_1>, <voice_2>")
    assert not is_equivalence("No equivalence here")
    assert not is_equivalence("Equivalences are hard")


def test_back_translate_cartesian_product_and_limit():
    members = {1: ["<face_3>", "<voice_4>"], 2: ["<face_12>"], 9: []}
    out = back_translate("Did <character_1> meet <character_2> or <character_9>?", members)
    assert out == ["Did <face_3> meet <face_12> or <character_9>?", "Did <voice_4> meet <face_12> or <character_9>?"]
    many = {i: [f"<face_{i}{j}>" for j in range(5)] for i in range(1, 5)}
    q = " ".join(f"<character_{i}>" for i in range(1, 5))
    assert len(back_translate(q, many, limit=100)) == 100
    assert back_translate("no tags", members) == ["no tags"]
