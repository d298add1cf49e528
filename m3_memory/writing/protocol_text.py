"""Exact protocol strings of the M3-Agent-Memorization model (the interface it was fine-tuned on).

Source: ByteDance-Seed/m3-agent, commit 0e3e41939bd8, ``mmagent/prompts.py:308-330``
(``prompt_generate_memory_with_ids_sft``) and the context labels of ``mmagent/memory_processing_qwen.py``.
Kept byte-identical on purpose (tabs included): the released checkpoint must see what it was trained with.
"""

# ruff: noqa: E501, W191
MEMORY_PROMPT_SFT = """You will be given a video and a set of character features. Each feature is either a face (represented by a video frame with a bounding box) or a voice (represented by one or more speech segments, each with MM:SS start and end times, and transcript content). Each feature has a unique ID enclosed in angle brackets. Some features may belong to the same character.

Your task consists of two parts:
1.	Video Description:
Generate a detailed and cohesive description of the current video clip. Use the provided feature IDs as references to characters (when applicable). Your description should cover all observable and inferable events. Each description should focus on a single atomic event or fact.
2.	High-Level Conclusions:
Generate high-level reasoning-based conclusions that go beyond surface-level observations. Use logical inference to identify character intentions, relationships, and identities. If a face and a voice feature refer to the same character, indicate it using this exact format: Equivalence: <face_x>, <voice_y>

Output Format:
Your output must be a JSON object with the following structure:

{
	"video_description": [
		"...",  // each string is one atomic event description
		"..."
	],
	"high_level_conclusions": [
		"...",  // each string is one high-level inference or identity resolution
		"Equivalence: <face_1>, <voice_2>"
	]
}

Please only return the valid JSON object, without any additional explanation or formatting."""

FACE_FEATURES_LABEL = "Face features:"
VOICE_FEATURES_LABEL = "Voice features:"
