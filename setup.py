"""pip install of the ROS-free core: `pip install -e .` gives m3_memory, m3_control and the CLIs.

The ROS package (`m3_agent`, interfaces + nodes) is built with colcon from CMakeLists.txt; see scripts/setup.sh.
"""

from setuptools import find_packages, setup

setup(
    name="m3-agent-ros",
    version="0.1.0",
    description="M3-Agent long-term multimodal memory for ROS 2 robots",
    license="Apache-2.0",
    python_requires=">=3.10",
    packages=find_packages(include=["m3_memory*", "m3_control*", "m3_agent_ros*"]),
    include_package_data=True,
    # non-Python files inside the packages (no MANIFEST.in, so include_package_data alone ships none of them)
    package_data={"m3_control.evaluation": ["templates/*.j2"],
                  "m3_control.browser": ["templates/*.j2", "static/*"]},
    install_requires=[
        "numpy>=1.26",
        "psycopg[binary]>=3.2",
        "faiss-cpu>=1.8",
        "PyYAML>=6",
        "onnxruntime>=1.17",
        "tokenizers>=0.15",
        "httpx>=0.25",
        "tqdm>=4.60",
        "Jinja2>=3.1",
    ],
    entry_points={
        "console_scripts": [
            "m3-memory=m3_memory.cli:main",
            "m3-bag=m3_agent_ros.bags.cli:main",
            "m3-bench=m3_agent_ros.bench:main",
            "m3-replay=m3_agent_ros.replay:main",
            "m3-browser=m3_control.browser.cli:main",
            "m3-serve-llm=m3_control.backends.llama_server:main",
        ],
        # commands of m3-memory that live in packages above m3_memory (it imports none of them)
        "m3_memory.commands": ["serve=m3_control.browser.cli:main"],
    },
)
